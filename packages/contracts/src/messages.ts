import { APP_KEY_RATE_LIMIT_MAX, APP_KEY_RATE_LIMIT_MIN } from './integration-constants.ts';

/**
 * Every message the server says to people, by key: each key has its en and zh text, with `{name}` where a
 * value goes. The server throws keys with their values (`new AppError(409, 'device.alreadyBound')`), the error
 * handler says them in the caller's language, and `data.fields[]` carries `key` and `params` beside the en
 * `message`, so the console says them in its own language from this same catalogue.
 *
 * Values: `{what}` is a noun of NOUNS, `{field}` a field path (said with its form label in zh), and a value that
 * is itself a message (`{why}`, `{rows}`) may be given as `{ key, params }`. Anything else is put in as it is.
 * One catalogue, split by section below; `MESSAGES` is the one lookup.
 */

/** The HTTP layer: SPEC §8's default texts of the codes (`http.<code>`), Fastify's and Node's own refusals. */
const http = {
  'http.200': { en: 'server returned data', zh: '服务器成功返回请求的数据' },
  'http.201': { en: 'created or modified', zh: '新建或修改数据成功' },
  'http.202': { en: 'queued async task', zh: '一个请求已经进入后台排队（异步任务）' },
  'http.204': { en: 'deleted', zh: '删除数据成功' },
  'http.400': { en: 'request information is wrong', zh: '发出的请求有错误' },
  'http.401': {
    en: 'no permission (token invalid, wrong user name or password, login expired)',
    zh: '用户没有权限（令牌失效、用户名或密码错误、登录过期）',
  },
  'http.402': { en: 'token expired', zh: '令牌过期' },
  'http.403': { en: 'authorized but forbidden', zh: '用户得到授权，但是访问是被禁止的' },
  'http.404': { en: 'resource does not exist', zh: '访问的资源不存在' },
  'http.405': { en: 'method not allowed on this path', zh: '该地址不支持此请求方法' },
  'http.408': { en: 'request timed out', zh: '请求超时' },
  'http.409': { en: 'conflicts with the current state', zh: '与当前状态冲突' },
  'http.413': { en: 'request body too large', zh: '请求体过大' },
  'http.415': { en: 'unsupported media type', zh: '不支持的内容类型' },
  'http.416': { en: 'requested range not satisfiable', zh: '请求的范围无法满足' },
  'http.417': { en: 'the Expect header cannot be met', zh: '无法满足请求的 Expect 条件' },
  'http.431': { en: 'request header or URL too large', zh: '请求头或地址过长' },
  'http.406': { en: 'format not available', zh: '请求的格式不可得' },
  'http.410': { en: 'resource permanently deleted', zh: '请求的资源被永久删除' },
  'http.429': { en: 'too many requests', zh: '请求过于频繁' },
  'http.500': { en: 'server error', zh: '服务器发生错误' },
  'http.502': { en: 'gateway error', zh: '网关错误' },
  'http.503': { en: 'service unavailable', zh: '服务不可用' },
  'http.504': { en: 'gateway timeout', zh: '网关超时' },
  'http.noRoute': { en: '{method} {path}: resource does not exist', zh: '{method} {path}：访问的资源不存在' },
  'http.notFound': { en: '{what} does not exist', zh: '{what}不存在' },
  'http.bodyNotJson': {
    en: "Body is not valid JSON but content-type is set to 'application/json'",
    zh: '请求体不是有效的 JSON',
  },
  'http.bodyEmpty': { en: "Body cannot be empty when content-type is set to 'application/json'", zh: '请求体不能为空' },
  'http.bodyTooLarge': { en: 'Request body is too large', zh: '请求体过大' },
  'http.mediaTypeRefused': { en: 'Unsupported Media Type: {type}', zh: '不支持的内容类型：{type}' },
  'http.mediaType': { en: 'Unsupported Media Type', zh: '不支持的内容类型' },
  'http.bodyLengthMismatch': {
    en: 'Request body size did not match Content-Length',
    zh: '请求体长度与 Content-Length 不符',
  },
  'http.malformed': { en: 'malformed HTTP request', zh: 'HTTP 请求格式错误' },
  'http.badUrl': { en: "'{url}' is not a valid url component", zh: '“{url}”不是有效的网址' },
  'http.methodNotAllowed': {
    en: '{method} {path}: method not allowed, use {allowed}',
    zh: '{method} {path}：不支持该请求方法，请使用 {allowed}',
  },
  'http.rateLimited': { en: 'too many requests, try again in {n} seconds', zh: '请求过于频繁，请 {n} 秒后再试' },
} as const;

/** Sessions, sign-in, registration, permissions. */
const auth = {
  'auth.brokerHook': {
    en: 'broker hook: send MQTT_AUTH_HOOK_SECRET as a bearer token (or in the User-Agent cpc-broker-hook/<secret>)',
    zh: '代理钩子：请以 Bearer 令牌（或 User-Agent cpc-broker-hook/<secret>）发送 MQTT_AUTH_HOOK_SECRET',
  },
  'auth.tokenInvalid': { en: 'token invalid', zh: '令牌无效，请重新登录' },
  'auth.tokenMissing': { en: 'token missing, please log in', zh: '未登录，请先登录' },
  'auth.loginExpired': { en: 'login expired, please log in again', zh: '登录已过期，请重新登录' },
  'auth.wrongPassword': { en: 'wrong user name or password', zh: '用户名或密码错误' },
  'auth.loginThrottled': {
    en: 'too many failed logins, try again in {n} minutes',
    zh: '登录失败次数过多，请 {n} 分钟后再试',
  },
  'auth.lockSignedOut': {
    en: 'too many wrong passwords: signed out, please log in again',
    zh: '密码错误次数过多，已退出登录，请重新登录',
  },
  'auth.passwordIncorrect': { en: 'please enter the correct password', zh: '请输入正确的密码' },
  'auth.oldPasswordWrong': { en: 'the old password is wrong', zh: '原密码错误' },
  'auth.captchaWrong': { en: 'graphic captcha is wrong or expired', zh: '图形验证码错误或已过期' },
  'auth.captchaRequired': { en: 'graphic captcha required', zh: '请输入图形验证码' },
  'auth.smsCountdown': { en: 'verification code can be resent after {n} seconds', zh: '{n} 秒后可重新发送验证码' },
  'auth.smsCodeExpired': { en: 'verification code expired, please get a new one', zh: '验证码已过期，请重新获取' },
  'auth.smsCodeWrong': { en: 'verification code is wrong', zh: '验证码错误' },
  'auth.mobileTaken': { en: 'this mobile number is already registered', zh: '该手机号已注册' },
  'auth.usernameTaken': { en: 'this user name is taken', zh: '该用户名已被使用' },
  'auth.usernameOrMobileTaken': { en: 'this user name or mobile number is taken', zh: '该用户名或手机号已被使用' },
  'auth.socialDisabled': {
    en: 'social login with "{provider}" is not enabled on this server',
    zh: '本服务器未启用“{provider}”社交登录',
  },
  'auth.socialStateInvalid': {
    en: 'this social sign-in is unknown, expired or already used, please start it again',
    zh: '该第三方登录请求无效、已过期或已使用，请重新发起',
  },
  'auth.socialOtherBrowser': {
    en: 'this sign-in was not started in this browser, please start it again here',
    zh: '此次第三方登录不是在本浏览器中发起的，请在本浏览器重新发起',
  },
  'auth.socialCodeRejected': {
    en: 'the identity provider refused the authorization code (already used or expired), please start again',
    zh: '身份提供方拒绝了授权码（已使用或已过期），请重新发起登录',
  },
  'auth.socialTokenRejected': {
    en: 'the identity provider answer failed verification (issuer, audience, nonce or expiry), please start again',
    zh: '身份提供方的应答未通过校验（签发方、受众、随机数或有效期），请重新发起登录',
  },
  'auth.socialDenied': {
    en: 'sign-in was cancelled or refused at the identity provider',
    zh: '已在身份提供方取消或拒绝登录',
  },
  'auth.socialUnreachable': {
    en: 'the identity provider "{provider}" cannot be reached, try again later',
    zh: '无法连接身份提供方“{provider}”，请稍后再试',
  },
  'auth.socialTicketInvalid': {
    en: 'the account link request expired or was already used, please sign in with the provider again',
    zh: '账号关联请求已过期或已使用，请重新通过第三方登录',
  },
  'auth.socialAlreadyLinked': {
    en: 'this {provider} identity is already linked to an account',
    zh: '该{provider}身份已关联到账号',
  },
  'auth.permissionRequired': { en: 'permission {permission} required', zh: '需要权限 {permission}' },
  'auth.staffOnly': { en: 'platform staff only', zh: '仅平台工作人员可用' },
  'auth.eventTicketInvalid': {
    en: 'event ticket invalid or expired, ask for a new one',
    zh: '实时事件凭证无效或已过期，请重新获取',
  },
} as const;

/** The personal centre and sub-accounts. */
const user = {
  'user.currentSession': { en: 'this is the current session: log out instead', zh: '这是当前会话，请直接退出登录' },
  'user.mainAccountOnly': { en: 'only the main account can manage sub-accounts', zh: '只有主账号可以管理子账号' },
  'user.roleMissing': { en: 'a role does not exist', zh: '角色不存在' },
  'user.subAccountOwnsRecords': {
    en: 'this sub-account still owns records: disable it instead',
    zh: '该子账号仍有关联记录，请改为停用',
  },
  'user.selfRoles': { en: 'you cannot change your own roles', zh: '不能修改自己的角色' },
  'user.selfState': { en: 'you cannot disable or delete yourself', zh: '不能停用或删除自己' },
  'user.permissionNotHeld': {
    en: 'a role holds a permission you do not hold: {permission}',
    zh: '角色包含您未拥有的权限：{permission}',
  },
  'user.lastAdmin': {
    en: 'this is the last active administrator: the platform must keep one',
    zh: '这是最后一个启用的管理员，平台必须保留至少一个',
  },
  'user.outsideScope': {
    en: 'the user {user} is outside your data scope',
    zh: '用户 {user} 不在您的数据范围内',
  },
  'user.departmentOutsideScope': {
    en: 'the department {department} is outside your data scope',
    zh: '部门 {department} 不在您的数据范围内',
  },
  'user.departmentRequiredInScope': {
    en: 'choose a department inside your data scope: a user in none is outside it',
    zh: '请选择您数据范围内的部门：未分配部门的用户不在您的数据范围内',
  },
} as const;

/** The department tree (issue 12). */
const department = {
  'department.nameTaken': { en: 'a department with this name already exists here', zh: '此处已有同名部门' },
  'department.cycle': {
    en: 'a department cannot be moved under itself or one of its sub-departments',
    zh: '部门不能移动到自身或其下级部门中',
  },
  'department.hasChildren': {
    en: 'this department has {n} sub-departments: delete or move them first',
    zh: '该部门下还有 {n} 个下级部门，请先删除或移走',
  },
  'department.hasUsers': {
    en: 'this department has {n} users: move them to another department first',
    zh: '该部门下还有 {n} 个用户，请先将其调至其他部门',
  },
  'department.hasDevices': {
    en: 'this department has {n} devices: move them to another department first',
    zh: '该部门下还有 {n} 台设备，请先将其调至其他部门',
  },
  'department.outsideScope': {
    en: 'the department {department} is outside your data scope: you can change only the departments below your own',
    zh: '部门 {department} 不在您的数据范围内：您只能修改本部门以下的部门',
  },
  'department.ownDepartment': {
    en: 'the department {department} is your own: you can change only the departments below it',
    zh: '部门 {department} 是您所在的部门：您只能修改它的下级部门',
  },
  'department.topLevelInScope': {
    en: "the department {department} cannot be put at the top level: only a user who sees all of the account's data can do that",
    zh: '部门 {department} 不能放在顶层：只有能查看账号全部数据的用户才能这样做',
  },
  'department.ownScopeReadOnly': {
    en: 'your data scope is "own only": you cannot change the department tree (the department {department})',
    zh: '您的数据范围为“仅本人”，不能修改部门结构（部门 {department}）',
  },
} as const;

/** Roles and the permission tree (issue 12). */
const role = {
  'role.codeTaken': { en: 'a role with this code already exists', zh: '角色编码已存在' },
  'role.permissionUnknown': { en: 'unknown permission {permission}', zh: '未知权限 {permission}' },
  'role.permissionPlatformOnly': {
    en: 'permission {permission} is for platform staff only',
    zh: '权限 {permission} 仅限平台人员',
  },
  'role.permissionNotHeld': {
    en: 'you cannot grant {permission}: you do not hold it yourself',
    zh: '不能授予自己没有的权限 {permission}',
  },
  'role.ownRole': { en: 'you cannot change a role you hold yourself', zh: '不能修改自己所属的角色' },
  'role.selfMember': { en: 'you cannot add yourself to a role', zh: '不能把自己加入角色' },
  'role.adminLocked': {
    en: 'the Admin role holds every permission: it cannot be edited or deleted',
    zh: '管理员角色拥有全部权限，不能编辑或删除',
  },
  'role.inUse': {
    en: 'the role has {count} members: move them to another role to delete it',
    zh: '该角色有 {count} 个成员，请先将成员转移到其他角色',
  },
  'role.reassignSame': { en: 'choose another role to move the members to', zh: '请选择另一个角色接收成员' },
  'role.userMissing': { en: 'a user does not exist in this account', zh: '用户不存在' },
  'role.scopeWider': {
    en: 'the data scope "{scope}" is wider than your own ("{own}")',
    zh: '数据范围“{scope}”超出了您自己的数据范围（“{own}”）',
  },
  'role.roleScopeWider': {
    en: 'the role {role} has the data scope "{scope}", wider than your own ("{own}")',
    zh: '角色 {role} 的数据范围“{scope}”超出了您自己的数据范围（“{own}”）',
  },
  'role.membersOutsideScope': {
    en: 'the role has a member outside your data scope ({user}): you cannot widen what it gives',
    zh: '该角色有不在您数据范围内的成员（{user}），您不能扩大它授予的权限或数据范围',
  },
  'role.adminRoleAdminOnly': {
    en: 'only an administrator can change the Admin role',
    zh: '只有管理员可以修改管理员角色',
  },
  'role.adminCodeScopeLocked': {
    en: "the Admin role's code and data scope cannot be changed",
    zh: '管理员角色的编码和数据范围不能修改',
  },
  'role.scopeName.all': { en: 'all', zh: '全部数据' },
  'role.scopeName.department': { en: 'department and below', zh: '本部门及以下' },
  'role.scopeName.own': { en: 'own only', zh: '仅本人' },
} as const;

/** Identity authentication. */
const identity = {
  'identity.approvedTitle': { en: 'Identity authentication approved', zh: '实名认证已通过' },
  'identity.failedTitle': { en: 'Identity authentication failed', zh: '实名认证未通过' },
  'identity.notWaiting': {
    en: 'only a submission waiting for review can be reviewed',
    zh: '只能审核等待审核的认证资料',
  },
  'identity.mainAccountOnly': {
    en: 'only the main account can submit the identity authentication',
    zh: '只有主账号可以提交实名认证',
  },
  'identity.platformNeedsNone': { en: 'platform accounts need no identity authentication', zh: '平台账号无需实名认证' },
  'identity.alreadyWaiting': {
    en: 'the identity authentication is already waiting for review',
    zh: '实名认证已在等待审核',
  },
  'identity.alreadyAuthenticated': { en: 'the identity is already authenticated', zh: '已完成实名认证' },
  'identity.wrongKind': { en: 'this account is registered as {kind}', zh: '该账号注册类型为 {kind}' },
} as const;

/** Uploads and stored objects. */
const upload = {
  'upload.fileEmpty': { en: 'file is empty', zh: '文件为空' },
  'upload.tooLarge': { en: 'file must not exceed 10MB', zh: '文件不能超过10MB' },
  'upload.tooLargeMb': { en: 'file must not exceed {n} MB', zh: '文件不能超过 {n} MB' },
  'upload.fileRequired': { en: 'file required', zh: '请选择文件' },
  'upload.incomplete': { en: 'the file did not arrive whole', zh: '文件未完整上传，请重试' },
  'upload.notMultipart': { en: 'must be sent as multipart/form-data', zh: '必须以 multipart/form-data 上传' },
  'upload.badMultipart': { en: 'the multipart form cannot be read', zh: '无法读取 multipart 表单' },
  'upload.linkInvalid': { en: 'link invalid or expired', zh: '链接无效或已过期' },
  'upload.objectMissing': { en: 'object does not exist', zh: '文件不存在' },
  'upload.badRange': { en: 'the requested range is outside the file', zh: '请求的范围超出文件大小' },
  'upload.tokenInvalid': { en: 'upload token invalid or expired', zh: '上传凭证无效或已过期' },
  'upload.wrongType': { en: 'uploads must be jpg or png', zh: '上传文件只能是 jpg 或 png 格式' },
  'upload.attachmentType': {
    en: 'attachments must be images (jpg, png, gif, webp), pdf, zip or text (.txt, .log, .csv, .json)',
    zh: '附件只能是图片（jpg、png、gif、webp）、pdf、zip 或文本（.txt、.log、.csv、.json）',
  },
  'upload.nameMismatch': {
    en: 'the file is not what its name says: its bytes are {actual}',
    zh: '文件内容与文件名不符：实际为 {actual}',
  },
  'upload.imageFirst': { en: 'upload the image first', zh: '请先上传图片' },
} as const;

/** Devices and groups. */
const device = {
  'device.bindKeyWrong': { en: 'bind key is wrong', zh: '绑定码错误' },
  'device.boundElsewhere': { en: 'device is bound to another account', zh: '该设备已被其他账号绑定' },
  'device.alreadyBound': { en: 'the device is already bound to this account', zh: '该设备已绑定在本账号下' },
  'device.bindThrottled': {
    en: 'too many wrong bind keys for this device, try again in {n} minutes',
    zh: '该设备绑定码错误次数过多，请 {n} 分钟后再试',
  },
  'device.groupCycle': {
    en: 'a group cannot be moved under itself or one of its subgroups',
    zh: '分组不能移动到自身或其下级分组中',
  },
  'device.departmentNeedsAllScope': {
    en: "only a user who sees all of the account's devices can change a device's department",
    zh: '只有可查看全部设备的用户才能修改设备所属部门',
  },
  'device.groupNameTaken': { en: 'a group with this name already exists here', zh: '此处已有同名分组' },
  'device.fromAfterTo': { en: 'must be before to', zh: '必须早于结束时间' },
  'device.rangeTooLong': { en: 'the range must not exceed {n} days', zh: '时间范围不能超过 {n} 天' },
} as const;

/** Device models. */
const deviceModel = {
  'deviceModel.codeTaken': { en: 'a model with this code already exists', zh: '已有相同编码的型号' },
  'deviceModel.inUse': {
    en: 'the model is used by {n} registered devices and cannot be deleted',
    zh: '有 {n} 台已登记设备使用这个型号，不能删除',
  },
} as const;

/** The registry's CSV import. */
const registry = {
  'registry.tooManyRows': { en: 'at most {n} devices per file', zh: '每个文件最多 {n} 台设备' },
  'registry.notUtf8': {
    en: 'must be a UTF-8 CSV text file (in Excel: save as "CSV UTF-8")',
    zh: '必须是 UTF-8 编码的 CSV 文本文件（Excel 中请另存为“CSV UTF-8”）',
  },
  'registry.noRows': { en: 'no devices in the file', zh: '文件中没有设备' },
  'registry.badCsv': { en: 'not a valid CSV at line {line}: {why}', zh: '第 {line} 行不是有效的 CSV：{why}' },
  'registry.fileEmpty': { en: 'the file is empty', zh: '文件为空' },
  'registry.header': {
    en: 'the first line must be the header {header} (sn and model required)',
    zh: '第一行必须是表头 {header}（sn 与 model 必填）',
  },
  'registry.nothingImported': { en: 'nothing imported: {rows}', zh: '未导入任何设备：{rows}' },
  'registry.empty': { en: 'cannot be empty', zh: '不能为空' },
  'registry.unknownModel': { en: 'unknown model code "{code}"', zh: '没有编码为“{code}”的型号' },
  'registry.duplicate': { en: 'duplicate of row {row}', zh: '与第 {row} 行重复' },
  'registry.taken': { en: 'already registered', zh: '已登记过' },
  'registry.columns': { en: 'expected {expected} columns, found {found}', zh: '应有 {expected} 列，实际 {found} 列' },
  'registry.rowProblem': { en: 'row {row} {column}: {why}', zh: '第 {row} 行 {column}：{why}' },
  'registry.more': { en: 'and {n} more', zh: '另有 {n} 处' },
  'registry.race': {
    en: 'nothing imported: a serial number or ICCID was registered at the same time; try again',
    zh: '未导入任何设备：有序列号或 ICCID 同时被登记，请重试',
  },
} as const;

/** Device commands. */
const task = {
  'task.notCancelable': {
    en: 'the task is already {state} and cannot be canceled',
    zh: '任务已是 {state} 状态，不能取消',
  },
} as const;

/** The dashboard. */
const dashboard = {
  'dashboard.unknownTimeZone': { en: 'this time zone is not known to the server', zh: '服务器不认识这个时区' },
  'dashboard.targetMainAccountOnly': {
    en: 'only the main account can set the monthly target',
    zh: '只有主账号可以设置月度目标',
  },
} as const;

/** App keys and callbacks. */
const integration = {
  'integration.keyRefused': { en: 'the open API refused the key: {why}', zh: '开放接口拒绝了该密钥：{why}' },
  'integration.needsAccountScope': {
    en: 'app keys act for the whole account: managing them needs the data scope "all data"',
    zh: '应用密钥代表整个账号：管理密钥需要“全部数据”的数据权限',
  },
  'integration.tooManyKeys': {
    en: 'an account has at most {n} app keys; delete one first',
    zh: '每个账号最多 {n} 个应用密钥，请先删除一个',
  },
} as const;

/** Print jobs. */
const print = {
  'print.alreadyCanceled': { en: 'the job is already canceled', zh: '打印任务已取消' },
  'print.alreadySent': {
    en: 'the job is {state} but was already sent to the printer ({n} {deliveries}) and may print: it can no longer be canceled',
    zh: '打印任务为 {state} 状态，但已发送到打印机（{n} 次），可能会打印，不能再取消',
  },
  'print.notCancelable': {
    en: 'the job is already {state} and can no longer be canceled',
    zh: '打印任务已是 {state} 状态，不能再取消',
  },
} as const;

/** The open API's signature checks. */
const openApi = {
  'open.notJson': { en: 'not valid JSON', zh: '不是有效的 JSON' },
  'open.notSigned': { en: 'not signed', zh: '调用未签名' },
  'open.headersMissing': { en: 'signature headers missing: {headers}', zh: '缺少签名请求头：{headers}' },
  'open.badTimestamp': { en: '{header} must be Unix time in seconds', zh: '{header} 必须是以秒为单位的 Unix 时间' },
  'open.badNonce': {
    en: '{header} must be 8-64 letters, digits, _ or -',
    zh: '{header} 必须是 8-64 位字母、数字、_ 或 -',
  },
  'open.badSignatureFormat': { en: '{header} must be 64 hex digits', zh: '{header} 必须是 64 位十六进制数' },
  'open.badContentSha': {
    en: '{header} must be 64 hex digits (the SHA-256 of the body)',
    zh: '{header} 必须是 64 位十六进制数（请求体的 SHA-256）',
  },
  'open.unknownAppId': { en: 'unknown app id {appId}', zh: '未知的应用 ID {appId}' },
  'open.keyDisabled': { en: 'this app key is disabled', zh: '该应用密钥已停用' },
  'open.ipRefused': { en: 'calls from {ip} are not allowed for this key', zh: '该密钥不允许来自 {ip} 的调用' },
  'open.clockSkew': {
    en: 'the timestamp is {n} s {direction}; at most {window} s either way',
    zh: '时间戳偏差 {n} 秒（{direction}），最多允许前后 {window} 秒',
  },
  'open.badSignature': {
    en: 'the signature does not match: see docs/open-api.md for the string to sign',
    zh: '签名不匹配：待签名字符串见 docs/open-api.md',
  },
  'open.bodyMismatch': {
    en: 'the body received is not the one whose SHA-256 {header} gives: it was changed on its way (check proxies that rewrite bodies)',
    zh: '收到的请求体与 {header} 给出的 SHA-256 不符：请求体在途中被改动（请检查会改写请求体的代理）',
  },
  'open.nonceReused': {
    en: 'this nonce was used before: every call needs a new one',
    zh: '该 nonce 已使用过：每次调用都需要新的 nonce',
  },
  'open.rateLimited': {
    en: 'too many calls: at most {n} per second for this key; try again in {s} s',
    zh: '调用过于频繁：该密钥每秒最多 {n} 次，请 {s} 秒后再试',
  },
} as const;

/** The receipt markup (contracts/print-markup.ts). */
const markup = {
  'markup.contentEmpty': { en: 'the content is empty', zh: '内容为空' },
  'markup.nothingPrint': { en: 'nothing to print', zh: '没有可打印的内容' },
  'markup.tooLong': { en: 'the content is longer than {n} characters', zh: '内容超过 {n} 个字符' },
  'markup.tooManyLines': { en: 'more than {n} lines and blocks', zh: '超过 {n} 行或块' },
  'markup.strayLt': {
    en: "'<' does not start a tag: write &lt; for a literal <",
    zh: '“<”不是标签的开头：要打印 < 请写 &lt;',
  },
  'markup.unknownTag': { en: 'unknown tag; the tags are {tags}', zh: '未知标签；可用的标签有 {tags}' },
  'markup.textAfterClose': {
    en: 'text follows the closing tag on the same line: end the line after it',
    zh: '结束标签后同一行还有文字：请在结束标签后换行',
  },
  'markup.selfClosing': {
    en: '<{tag}/> is not a tag: <{tag}> needs a closing </{tag}>',
    zh: '<{tag}/> 不是标签：<{tag}> 需要结束标签 </{tag}>',
  },
  'markup.standsAlone': { en: '<{tag}> stands alone and has no closing tag', zh: '<{tag}> 是单独标签，没有结束标签' },
  'markup.unopened': { en: '</{tag}> without an opening <{tag}>', zh: '</{tag}> 没有对应的开始标签 <{tag}>' },
  'markup.misnested': {
    en: '</{tag}> closes nothing: <{outer}> is open',
    zh: '</{tag}> 没有可结束的标签：<{outer}> 尚未结束',
  },
  'markup.unclosed': { en: '<{tag}> is not closed: add </{tag}>', zh: '<{tag}> 没有结束：请加上 </{tag}>' },
  'markup.dataOnly': { en: '<{tag}> holds data only, not {inner}', zh: '<{tag}> 只能包含数据，不能包含 {inner}' },
  'markup.empty': { en: '<{tag}> is empty', zh: '<{tag}> 为空' },
  'markup.oneLine': { en: '<{tag}> data must stay on one line', zh: '<{tag}> 的数据必须在一行内' },
  'markup.alignNested': {
    en: '<{tag}> inside <{outer}>: one alignment at a time',
    zh: '<{tag}> 在 <{outer}> 之内：一次只能一种对齐',
  },
  'markup.nested': { en: '<{tag}> inside <{outer}>', zh: '<{tag}> 在 <{outer}> 之内' },
  'markup.lineStart': { en: '<{tag}> must start a line', zh: '<{tag}> 必须在行首' },
  'markup.controlInData': { en: 'control character {code} in the data', zh: '数据中有控制字符 {code}' },
  'markup.controlCharacter': { en: 'control character {code}', zh: '控制字符 {code}' },
  'markup.barcodeTooWide': {
    en: 'the barcode is too wide for {mm} mm paper: at most {n} characters',
    zh: '条码对 {mm} mm 纸张过宽：最多 {n} 个字符',
  },
  'markup.tab': { en: 'a tab: use spaces', zh: '制表符：请使用空格' },
  'markup.beyondBmp': {
    en: "U+{code} cannot be printed: emoji and other characters beyond U+FFFF are not in the printer's font",
    zh: 'U+{code} 无法打印：打印机字库中没有表情符号等 U+FFFF 以外的字符',
  },
  'markup.loneSurrogate': {
    en: 'U+{code} is half of a character (a lone surrogate)',
    zh: 'U+{code} 是半个字符（孤立的代理项）',
  },
  'markup.qrTooLong': { en: 'QR data is longer than {n} bytes', zh: '二维码数据超过 {n} 字节' },
  'markup.barcode': {
    en: 'barcode data must be 1-{n} printable ASCII characters',
    zh: '条码数据必须是 1-{n} 个可打印 ASCII 字符',
  },
  'markup.imageSource': {
    en: 'an image is an http(s) URL or an object key of your storage (YYYYMMDD/<16 hex>/<name>)',
    zh: '图片必须是 http(s) 地址或存储中的对象键（YYYYMMDD/<16位十六进制>/<文件名>）',
  },
  'markup.tooManyImages': { en: 'at most {n} images', zh: '最多 {n} 张图片' },
  'markup.atTag': {
    en: '<{tag}> at line {line}, column {column}: {why}',
    zh: '<{tag}> 第 {line} 行第 {column} 列：{why}',
  },
  'markup.at': { en: 'line {line}, column {column}: {why}', zh: '第 {line} 行第 {column} 列：{why}' },
} as const;

/** Field rules of the contracts (zod schemas) and of the services. */
const rules = {
  'rule.internalAddress': {
    en: 'must not point at an internal address (loopback, private network, link-local or reserved)',
    zh: '不能指向内部地址（本机、内网、链路本地或保留地址）',
  },
  'rule.resolvesInternal': { en: '{host} resolves to {ip}, an internal address', zh: '{host} 解析为内部地址 {ip}' },
  'rule.wholeNumber': { en: 'must be a whole number', zh: '必须是整数' },
  'rule.jobId': { en: 'must be a job id', zh: '必须是打印任务 ID' },
  'rule.deliveryId': { en: 'must be a delivery id', zh: '必须是回调记录 ID' },
  'rule.taskId': { en: 'must be a task id', zh: '必须是任务 ID' },
  'rule.sha256': { en: 'must be a SHA-256 in hex (64 characters)', zh: '必须是 64 位十六进制的 SHA-256' },
  'rule.uploadId': { en: 'must be an upload id', zh: '必须是上传 ID' },
  'rule.sessionId': { en: 'must be a session id', zh: '必须是会话 ID' },
  'rule.timeZone': {
    en: 'must be an IANA time zone such as Asia/Shanghai',
    zh: '必须是 IANA 时区，例如 Asia/Shanghai',
  },
  'rule.aclAction': {
    en: 'give action (publish, subscribe) or acc (1-4)',
    zh: '请给出 action（publish、subscribe）或 acc（1-4）',
  },
  'rule.bindKeyRequired': { en: 'bind key cannot be empty', zh: '绑定码不能为空' },
  'rule.devicesRequired': { en: 'choose at least one device', zh: '请至少选择一台设备' },
  'rule.nameOrRemark': { en: 'give a name or a remark', zh: '请填写名称或备注' },
  'rule.modelRequired': { en: 'model cannot be empty', zh: '型号不能为空' },
  'rule.isoDateTime': { en: 'must be an ISO date-time', zh: '必须是 ISO 日期时间' },
  'rule.maxChars': { en: 'must be at most {n} characters', zh: '不能超过 {n} 个字符' },
  'rule.logCursor': { en: 'must be the next cursor of a log page', zh: '必须是日志分页返回的游标' },
  'systemLog.tenantStaffOnly': { en: 'only platform staff choose a tenant', zh: '仅平台工作人员可以选择租户' },
  'rule.capabilityRepeat': { en: 'must not repeat a capability', zh: '能力不能重复' },
  'rule.deviceRepeat': { en: 'must not repeat a device', zh: '设备不能重复' },
  'rule.nameRequired': { en: 'name cannot be empty', zh: '名称不能为空' },
  'rule.maxEntries': { en: 'at most {n} entries', zh: '最多 {n} 项' },
  'rule.contentRequired': { en: 'content cannot be empty', zh: '内容不能为空' },
  'rule.ipList': {
    en: 'each must be an IPv4 or IPv6 address or CIDR block',
    zh: '每一项都必须是 IPv4 或 IPv6 地址或 CIDR 网段',
  },
  'rule.keyChangeEmpty': {
    en: 'give a name, a callback URL, an IP allow-list or a rate limit',
    zh: '请填写名称、回调地址、IP 白名单或调用频率上限',
  },
  'rule.rateLimit': {
    en: `must be ${APP_KEY_RATE_LIMIT_MIN}-${APP_KEY_RATE_LIMIT_MAX} calls per second`,
    zh: `必须是每秒 ${APP_KEY_RATE_LIMIT_MIN}-${APP_KEY_RATE_LIMIT_MAX} 次`,
  },
  'rule.originId': { en: 'must be 1-64 letters, digits, _ . : or -', zh: '必须是 1-64 位字母、数字、_ . : 或 -' },
  'rule.callbackUrl': {
    en: 'must be an http:// or https:// URL of at most 500 characters, without a user name or password',
    zh: '必须是不超过 500 个字符的 http:// 或 https:// 地址，且不含用户名和密码',
  },
  'rule.noControl': { en: 'must not contain control characters', zh: '不能包含控制字符' },
  'rule.entryRepeat': { en: 'must not repeat an entry', zh: '不能有重复项' },
  'rule.maxDevices': { en: 'at most {n} devices at once', zh: '一次最多 {n} 台设备' },
  'rule.ticketRequired': { en: 'ticket cannot be empty', zh: '凭证不能为空' },
  'rule.maxRoles': { en: 'at most 20 roles', zh: '最多 20 个角色' },
  'rule.idBackRequired': { en: 'back ID photo required', zh: '请上传身份证反面照片' },
  'rule.idFrontRequired': { en: 'front ID photo required', zh: '请上传身份证正面照片' },
  'rule.licenceRequired': { en: 'business licence image required', zh: '请上传营业执照图片' },
  'rule.identityStatus': { en: 'must be 1, 2 or 3', zh: '必须是 1、2 或 3' },
  'rule.mobile': { en: 'must be 11 digits starting with 1', zh: '请输入以 1 开头的 11 位手机号' },
  'rule.username': {
    en: 'must be 4-20 letters, digits or underscores, starting with a letter',
    zh: '必须是 4-20 位字母、数字或下划线，并以字母开头',
  },
  'rule.strongPassword': {
    en: 'must be 8-16 characters with upper and lower case letters and digits',
    zh: '密码必须是 8-16 位，且包含大小写字母和数字',
  },
  'rule.email': { en: 'must be a valid e-mail address', zh: '请输入正确的电子邮箱' },
  'rule.smsCode': { en: 'must be the 6-digit code', zh: '请输入 6 位验证码' },
  'rule.passwordMin6': { en: 'password cannot be less than 6 characters', zh: '密码不能少于6位' },
  'rule.passwordMismatch': { en: 'the two passwords do not match', zh: '两次输入的密码不一致' },
  'rule.creditCode': { en: 'unified social credit code format must be correct', zh: '统一社会信用代码格式不正确' },
  'rule.idNumber': { en: 'ID number format must be correct', zh: '身份证号格式不正确' },
  'rule.usernameRequired': { en: 'user name cannot be empty', zh: '用户名不能为空' },
  'rule.sn': { en: 'must be 4-32 letters, digits, - or _', zh: '必须是 4-32 位字母、数字、- 或 _' },
  'rule.bindKey': { en: 'must be 6-32 letters or digits', zh: '必须是 6-32 位字母或数字' },
  'rule.secret': { en: 'must be 16-128 letters, digits, - or _', zh: '必须是 16-128 位字母、数字、- 或 _' },
  'rule.iccid': { en: 'must be 19 or 20 digits', zh: '必须是 19 或 20 位数字' },
  'rule.imei': { en: 'must be 15 digits with a valid check digit', zh: '必须是 15 位且校验位正确' },
  'rule.modelCode': { en: 'must be 2-32 letters, digits, ., - or _', zh: '必须是 2-32 位字母、数字、.、- 或 _' },
  'rule.capability': {
    en: 'each must be 2-32 lower-case letters, digits, - or _',
    zh: '每一项都必须是 2-32 位小写字母、数字、- 或 _',
  },
  'rule.linesRequired': { en: 'choose at least one SIM and package', zh: '请至少选择一张卡和一个套餐' },
  'rule.planBounds': { en: 'must not be below the lower plan bound', zh: '不能小于套餐适用下限' },
  'rule.requestId': { en: 'must be 8-64 letters, digits, - or _', zh: '必须是 8-64 位字母、数字、- 或 _' },
  'rule.reasonRequired': { en: 'reason cannot be empty', zh: '原因不能为空' },
  'rule.iccidDigits': { en: 'must be up to 20 digits', zh: '必须是不超过 20 位的数字' },
} as const;

/** Values the database refused (the safety net behind the schemas). */
const menu = {
  'menu.componentUnknown': { en: '{component} is not a page of the console', zh: '控制台没有页面 {component}' },
  'menu.componentOrRedirect': {
    en: 'give a page component or a redirect',
    zh: '请填写页面组件或重定向地址',
  },
  'menu.pathTaken': { en: 'another menu item already has the path {path}', zh: '已有菜单项使用路径 {path}' },
  'menu.nameTaken': { en: 'another menu item is already named {name}', zh: '已有菜单项名为 {name}' },
  'menu.targetMissing': { en: 'no menu item has the path {path}', zh: '没有路径为 {path} 的菜单项' },
  'menu.stillTargeted': {
    en: 'the menu item {name} leads to {path}: change it first',
    zh: '菜单项 {name} 指向 {path}，请先修改它',
  },
  'menu.cycle': { en: 'a menu item cannot be moved under itself', zh: '菜单项不能移动到自身之下' },
} as const;

/** Traffic packages, orders and payment (issue 13). */
const order = {
  'order.packageOffShelf': { en: 'package {id} is not on sale', zh: '套餐 {id} 未上架' },
  'order.packageNotFit': {
    en: 'package {id} does not fit SIM {iccid} (carrier or plan)',
    zh: '套餐 {id} 不适用于卡 {iccid}（运营商或资费不符）',
  },
  'order.perSimLimit': {
    en: 'SIM {iccid} may buy package {id} at most {n} times',
    zh: '卡 {iccid} 最多可购买套餐 {id} {n} 次',
  },
  'order.notPending': { en: 'the order is not awaiting payment', zh: '订单不是待支付状态' },
  'order.paymentOff': {
    en: 'payments are not set up on this server: packages cannot be bought',
    zh: '本平台尚未开通支付，暂时不能购买套餐',
  },
  'order.closed': {
    en: 'the order was closed: unpaid for {n} minutes',
    zh: '订单已关闭：超过 {n} 分钟未支付',
  },
  'order.notRefundable': {
    en: 'only paid or fulfilled orders can be refunded',
    zh: '只有已支付或已到账的订单可以退款',
  },
  'order.refundFailed': { en: 'the payment provider refused the refund', zh: '支付渠道拒绝了退款' },
  'order.refundProviderGone': {
    en: 'the order was paid through "{provider}", which this server no longer has set up: nothing was refunded',
    zh: '该订单通过“{provider}”支付，本服务器已不再配置该支付渠道：未退款',
  },
  'order.providerFailed': { en: 'the payment provider cannot be reached', zh: '无法连接支付渠道' },
} as const;

/** Firmware upgrades (issue 15). */
const upgrade = {
  'upgrade.notFirmware': { en: 'package {id} is not firmware', zh: '软件包 {id} 不是固件' },
  'upgrade.noDevices': { en: 'no device matches the targets', zh: '没有符合目标的设备' },
  'upgrade.noTargets': { en: 'choose devices, models, groups or versions', zh: '请选择设备、型号、分组或版本' },
  'upgrade.wrongModel': {
    en: 'the firmware does not fit device {sn} (model {model})',
    zh: '固件不适用于设备 {sn}（型号 {model}）',
  },
  'upgrade.expired': { en: 'the expiry time has passed', zh: '过期时间已过' },
  'upgrade.badState': {
    en: 'a release in state {state} cannot do this',
    zh: '处于“{state}”状态的发布不能执行此操作',
  },
  'upgrade.noFailed': { en: 'the release has no failed device', zh: '该发布没有失败的设备' },
} as const;

const database = {
  'db.unstorable': { en: 'a value contains a character that cannot be stored', zh: '有值包含无法保存的字符' },
  'db.format': { en: 'a value has an invalid format', zh: '有值格式不正确' },
  'db.range': { en: 'a value is out of range', zh: '有值超出范围' },
  'db.tooLong': { en: 'a value is too long', zh: '有值过长' },
  'db.dateTime': { en: 'a value is not a valid date or time', zh: '有值不是有效的日期或时间' },
  'db.invalid': { en: 'a value is invalid', zh: '有值无效' },
} as const;

/** Data traffic: the SIMs (issue 13). Alert titles are stored as their en text and said in the reader's language. */
const flowRate = {
  'flowRate.states': {
    en: 'states must be a comma-separated list of: active, low, exhausted, expired, suspended',
    zh: '状态须为逗号分隔的 active、low、exhausted、expired、suspended',
  },
  'flowRate.lowTitle': { en: 'SIM data running low', zh: '流量卡流量不足' },
  'flowRate.exhaustedTitle': { en: 'SIM data used up', zh: '流量卡流量已用尽' },
  'flowRate.expiringTitle': { en: 'SIM plan expires within 7 days', zh: '流量卡套餐将在 7 天内到期' },
  'flowRate.expiredTitle': { en: 'SIM plan expired', zh: '流量卡套餐已到期' },
} as const;

/** Work orders (issue 14). The work-order section adds its own keys here. */
const workOrder = {
  'rule.titleRequired': { en: 'title cannot be empty', zh: '标题不能为空' },
  'workOrder.states': {
    en: 'state must be a comma-separated list of: submitted, processing, waiting, resolved, closed, withdrawn',
    zh: '状态须为逗号分隔的 submitted、processing、waiting、resolved、closed、withdrawn',
  },
  'workOrder.assignee': {
    en: 'assignee must be a staff id, none or me',
    zh: '处理人须为工作人员编号、none 或 me',
  },
  'workOrder.state.submitted': { en: 'submitted', zh: '待受理' },
  'workOrder.state.processing': { en: 'in progress', zh: '处理中' },
  'workOrder.state.waiting': { en: 'waiting for the customer', zh: '待客户反馈' },
  'workOrder.state.resolved': { en: 'resolved', zh: '已解决' },
  'workOrder.state.closed': { en: 'closed', zh: '已关闭' },
  'workOrder.state.withdrawn': { en: 'withdrawn', zh: '已撤回' },
  'workOrder.taken': {
    en: 'this work order was taken by staff and can no longer be edited',
    zh: '该工单已被客服受理，不能再编辑',
  },
  'workOrder.notWithdrawable': {
    en: 'this work order is {state}: only a work order staff have not taken yet can be withdrawn',
    zh: '该工单{state}：只有尚未被受理的工单可以撤回',
  },
  'workOrder.replyClosed': {
    en: 'a {state} work order takes no replies',
    zh: '{state}的工单不能再回复',
  },
  'workOrder.replyResolved': {
    en: 'this work order is resolved: reopen it to reply',
    zh: '该工单已解决：如需继续沟通，请重新打开',
  },
  'workOrder.reopenExpired': {
    en: 'reopen is possible within {n} days of resolution',
    zh: '工单只能在解决后 {n} 天内重新打开',
  },
  'workOrder.notResolved': {
    en: 'this work order is {state}: only a resolved one can be reopened or closed',
    zh: '该工单{state}：只有已解决的工单可以重新打开或关闭',
  },
  'workOrder.notClosed': {
    en: 'this work order is {state}: only a closed one can be rated',
    zh: '该工单{state}：只有已关闭的工单可以评价',
  },
  'workOrder.alreadyRated': { en: 'this work order was rated already', zh: '该工单已评价过' },
  'workOrder.notOpen': {
    en: 'this work order is {state}: it can no longer be taken, assigned or resolved',
    zh: '该工单{state}：不能再受理、分派或解决',
  },
  'workOrder.customersOnly': {
    en: 'work orders are opened and edited by customers',
    zh: '工单由客户提交和编辑',
  },
  'workOrder.customerAction': { en: 'a customer can only reply', zh: '客户只能回复' },
  'workOrder.emptyReply': { en: 'write something or attach a file', zh: '请填写内容或添加附件' },
  'workOrder.deviceNotYours': {
    en: 'a device is not one of yours or is outside your data scope',
    zh: '有设备不属于您或不在您的数据范围内',
  },
  'workOrder.orderNotYours': { en: 'an order is not one of yours', zh: '有订单不属于您' },
  'workOrder.attachmentMissing': {
    en: 'an attachment is not a file you uploaded as an attachment',
    zh: '有附件不是您上传的附件文件',
  },
  'workOrder.assigneeNotStaff': {
    en: 'the assignee must be a staff member who handles work orders',
    zh: '处理人须为有工单处理权限的工作人员',
  },
  'workOrder.sharedNeedsSettings': {
    en: 'shared canned replies need the work-order settings permission',
    zh: '共享快捷回复需要工单设置权限',
  },
  'workOrder.targetsDuplicate': { en: 'each priority may appear once', zh: '每个优先级只能出现一次' },
  'workOrder.resolveBeforeResponse': {
    en: 'the resolution target cannot be shorter than the first-response target',
    zh: '解决时限不能短于首次响应时限',
  },
  'workOrder.repliedTitle': { en: 'Your work order has a reply', zh: '您的工单有新回复' },
  'workOrder.askedTitle': { en: 'Staff asked about your work order', zh: '客服需要您补充工单信息' },
  'workOrder.resolvedTitle': { en: 'Your work order was resolved', zh: '您的工单已解决' },
  'workOrder.customerRepliedTitle': { en: 'A customer replied to a work order', zh: '客户回复了工单' },
  'workOrder.reopenedTitle': { en: 'A customer reopened a work order', zh: '客户重新打开了工单' },
  'workOrder.assignedTitle': { en: 'A work order was assigned to you', zh: '有工单分派给您' },
} as const;

/** The message centre (issue 14): titles of system messages (stored as their en text) and the mail they are sent as. */
const inbox = {
  'inbox.orderFulfilledTitle': { en: 'Order paid: data added to your SIMs', zh: '订单已支付，流量已充值到流量卡' },
  'inbox.deviceFaultOut': { en: 'Printer out of paper', zh: '打印机缺纸' },
  'inbox.deviceFaultCoverOpen': { en: 'Printer cover open', zh: '打印机纸仓盖未关' },
  'inbox.deviceFaultOverheat': { en: 'Printer overheating', zh: '打印机过热' },
  'inbox.mailOpen': { en: 'Open it in the console: {url}', zh: '在控制台中查看：{url}' },
  'inbox.mailFooter': {
    en: "This message was sent by Cloud Print Console; you can also read it in the console's message centre.",
    zh: '此邮件由云打印控制台发送，您也可以在控制台的消息中心查看。',
  },
} as const;

/** System announcements (issue 14). */
const notice = {
  'notice.tenantIds': { en: 'must be a comma-separated list of ids', zh: '须为逗号分隔的编号' },
  'notice.bodyRequired': { en: 'content cannot be empty', zh: '内容不能为空' },
  'notice.endsBeforePublish': { en: 'must be after the publish time', zh: '须晚于发布时间' },
  'notice.endsPast': { en: 'has already passed', zh: '已经过去' },
  'notice.tenantsRequired': { en: 'choose at least one customer account', zh: '请至少选择一个客户账号' },
  'notice.tenantMissing': { en: 'customer account {id} does not exist', zh: '客户账号 {id} 不存在' },
  'notice.notEditable': {
    en: 'a withdrawn announcement cannot be edited',
    zh: '已撤回的公告不能修改',
  },
  'notice.notDraft': { en: 'only a draft can be published', zh: '只有草稿可以发布' },
  'notice.notPublished': { en: 'only a published announcement can be withdrawn', zh: '只有已发布的公告可以撤回' },
  'notice.notDeletable': {
    en: 'a published announcement cannot be deleted: withdraw it first',
    zh: '已发布的公告不能删除，请先撤回',
  },
} as const;

/** File acquisition (issue 15): requests to devices for files, and their uploads. */
const fileAcquisition = {
  'fileAcquisition.pathNotAllowed': {
    en: 'the path must be below /data/log/, /data/anr/, /data/tombstones/, /sdcard/Download/ or /sdcard/Android/data/<package>/files/, without "..", with only * and ? as wildcards',
    zh: '路径必须位于 /data/log/、/data/anr/、/data/tombstones/、/sdcard/Download/ 或 /sdcard/Android/data/<包名>/files/ 之下，不能含“..”，通配符只能用 * 和 ?',
  },
  'fileAcquisition.whatRequired': {
    en: 'choose a predefined set or give a path, one of the two',
    zh: '请选择预设文件或填写路径（二选一）',
  },
  'fileAcquisition.alreadyComplete': {
    en: 'this upload is already complete: the link cannot be used again',
    zh: '该上传已完成，链接不能再次使用',
  },
  'fileAcquisition.closed': {
    en: 'the request is no longer open ({state}): nothing is taken',
    zh: '该请求已不再等待上传（{state}），不接收文件',
  },
  'fileAcquisition.badContentRange': {
    en: 'each chunk needs Content-Range: bytes a-b/total matching its length, at most {max} bytes',
    zh: '每个分片须带 Content-Range: bytes a-b/total，且与分片长度一致，单片不超过 {max} 字节',
  },
  'fileAcquisition.wrongOffset': {
    en: 'the server has {offset} bytes of this file: send the chunk that starts there',
    zh: '服务器已收到 {offset} 字节，请从该位置继续上传',
  },
  'fileAcquisition.totalChanged': {
    en: 'the file size changed during the upload (was {total} bytes)',
    zh: '上传过程中文件大小发生变化（原为 {total} 字节）',
  },
  'fileAcquisition.tooLarge': {
    en: 'the file is {size} bytes, over the {max} bytes the request allows',
    zh: '文件大小 {size} 字节，超过请求允许的 {max} 字节',
  },
  'fileAcquisition.notReady': { en: 'the file has not arrived yet', zh: '文件尚未上传完成' },
} as const;

/** The AI library (issue 15): cloud OCR jobs. */
const aiLibrary = {
  'ai.notImage': { en: 'the image must be a jpg, png or webp picture', zh: '图片只能是 jpg、png 或 webp 格式' },
  'ai.tooLarge': { en: 'the image must not exceed {n} MB', zh: '图片不能超过 {n} MB' },
  'ai.tooManyPixels': {
    en: 'the image is {width}×{height} pixels; at most {max} megapixels are read',
    zh: '图片为 {width}×{height} 像素，最多只能识别 {max} 百万像素',
  },
  'ai.notBase64': { en: 'the image must be base64', zh: '图片必须是 base64 编码' },
  'ai.tenantLimit': {
    en: 'at most {n} recognition jobs may be queued or running at once; wait for one to finish',
    zh: '同时排队或运行的识别任务最多 {n} 个，请等待已有任务完成',
  },
  'ai.notDone': { en: 'the recognition has not finished', zh: '识别尚未完成' },
  'ai.emptyText': { en: 'no text was recognised', zh: '未识别到文字' },
  'ai.noAppKey': {
    en: 'printing needs an active app key: create one under system integration',
    zh: '打印需要一个启用的应用密钥，请先在系统集成中创建',
  },
} as const;

/** Fleet software packages (issue 15): chunked uploads and the catalogue. */
const pkg = {
  'package.uploadTooLarge': { en: 'a package must not exceed {n} GB', zh: '软件包不能超过 {n} GB' },
  'package.uploadExpired': {
    en: 'the upload expired (unfinished uploads are kept 24 hours): start it again',
    zh: '上传已过期（未完成的上传保留 24 小时），请重新上传',
  },
  'package.uploadOffset': {
    en: 'the chunk starts at byte {got}, but the upload is at byte {offset}',
    zh: '分片起始位置 {got} 与已上传位置 {offset} 不一致',
  },
  'package.uploadRange': {
    en: 'Content-Range must read "bytes start-end/total" with the upload\'s size',
    zh: 'Content-Range 必须为 "bytes 起始-结束/总大小"，且总大小与上传一致',
  },
  'package.chunkTooLarge': { en: 'a chunk must not exceed {n} MB', zh: '单个分片不能超过 {n} MB' },
  'package.uploadBusy': {
    en: 'another request is writing this upload: retry in a moment',
    zh: '该上传正被另一个请求写入，请稍后重试',
  },
  'package.uploadIncomplete': {
    en: 'the upload is not finished: {offset} of {size} bytes arrived',
    zh: '上传未完成：已收到 {offset} / {size} 字节',
  },
  'package.sha256Mismatch': {
    en: 'the SHA-256 of the uploaded bytes is {actual}, not the one given',
    zh: '上传文件的 SHA-256 为 {actual}，与提供的不一致',
  },
  'package.notApk': {
    en: '{name} is not an Android application (no zip with AndroidManifest.xml)',
    zh: '{name} 不是 Android 应用（不是含 AndroidManifest.xml 的 zip）',
  },
  'package.apkUnsigned': { en: '{name} carries no signing certificate', zh: '{name} 没有签名证书' },
  'package.otherCertificate': {
    en: '{identifier} is signed by certificate {expected}…; this file by {actual}…',
    zh: '{identifier} 已有版本的签名证书为 {expected}…，此文件的为 {actual}…',
  },
  'package.versionExists': {
    en: 'version {version} of {identifier} already exists',
    zh: '{identifier} 已存在版本 {version}',
  },
  'package.inUse': {
    en: 'the package is used by {n} unfinished device tasks',
    zh: '该软件包正被 {n} 个未完成的设备任务使用',
  },
  'package.unknownModel': { en: 'unknown device model {model}', zh: '未知的设备型号 {model}' },
  'package.uploadNeedsEdit': {
    en: 'uploading a package needs the permission to edit firmware, applications or AI models',
    zh: '上传软件包需要固件升级、应用管理或 AI 模型的编辑权限',
  },
  'package.uploadQuota': {
    en: 'your organisation has {n} unfinished package uploads of {gb} GB; at most {max} uploads and {maxGb} GB may wait at once: finish one, or wait until it expires 24 hours after it began',
    zh: '本组织已有 {n} 个未完成的软件包上传（共 {gb} GB），最多同时保留 {max} 个、{maxGb} GB：请先完成一个，或等待其在开始 24 小时后过期',
  },
  'archive.entryTooLarge': {
    en: 'entry {entry} of {name} inflates beyond {mb} MB',
    zh: '{name} 中的 {entry} 解压后超过 {mb} MB',
  },
  'archive.entryLies': {
    en: 'entry {entry} of {name} inflates beyond the {size} bytes its header declares',
    zh: '{name} 中的 {entry} 解压后超过其头部声明的 {size} 字节',
  },
  'archive.entryRatio': {
    en: 'entry {entry} of {name} is compressed {ratio}:1, beyond the {max}:1 allowed',
    zh: '{name} 中的 {entry} 压缩比为 {ratio}:1，超过允许的 {max}:1',
  },
  'archive.busy': {
    en: 'the server is reading too many archives right now: retry in a moment',
    zh: '服务器正在读取的压缩包过多，请稍后重试',
  },
} as const;

/** Application management (issue 15): deployments of apps and models, required apps. */
const application = {
  'application.kindMismatch': { en: 'the package is not of kind {kind}', zh: '该软件包不是{kind}类型' },
  'application.packageRequired': { en: 'choose the package to install', zh: '请选择要安装的软件包' },
  'application.identifierRequired': { en: 'choose the app or model to remove', zh: '请选择要卸载的应用或模型' },
  'application.targetsRequired': { en: 'choose at least one device or group', zh: '请至少选择一台设备或一个分组' },
  'application.noDevices': { en: 'the chosen groups hold no devices', zh: '所选分组下没有设备' },
  'application.tooManyDevices': { en: 'at most {max} devices at a time', zh: '一次最多 {max} 台设备' },
  'application.notInstalled': {
    en: 'none of the chosen devices has it installed',
    zh: '所选设备都没有安装它',
  },
  'application.notCancelable': { en: 'the deployment has no unfinished task', zh: '该部署任务已没有未完成的设备' },
  'application.nothingToRetry': { en: 'no device of the deployment failed', zh: '该部署任务没有失败的设备' },
  'application.unknownApp': {
    en: 'no uploaded app has the package name {identifier}',
    zh: '没有包名为 {identifier} 的已上传应用',
  },
  'application.duplicateApp': { en: '{identifier} is listed twice', zh: '{identifier} 重复' },
} as const;

/** Push tasks and push query (issue 16). */
const push = {
  'push.linkHttp': { en: 'must be an http:// or https:// address', zh: '必须是 http:// 或 https:// 地址' },
  'push.noTargets': { en: 'choose devices, groups or the whole fleet', zh: '请选择设备、分组或全部设备' },
  'push.noDevices': { en: 'no device matches the targets', zh: '没有符合目标的设备' },
  'push.scheduleFuture': { en: 'the scheduled time must be in the future', zh: '定时发送时间必须晚于当前时间' },
  'push.scheduleTooFar': { en: 'a push can be scheduled at most {n} days ahead', zh: '最多只能提前 {n} 天定时发送' },
  'push.expiryBeforeStart': {
    en: 'the expiry must be after the time the push is sent',
    zh: '过期时间必须晚于发送时间',
  },
  'push.imageRequired': { en: 'an image push needs an uploaded image', zh: '图片推送需要上传图片' },
  'push.notImage': { en: 'the uploaded file is not an image', zh: '上传的文件不是图片' },
  'push.linkRequired': { en: 'a link push needs an address', zh: '链接推送需要填写地址' },
  'push.noticeSecondsRequired': { en: 'a screen notice needs its display time', zh: '屏幕通知需要设置显示时长' },
  'push.badState': { en: 'a push that is {state} cannot do this', zh: '处于“{state}”状态的推送不能执行此操作' },
  'push.expired': { en: 'the push has expired: give a new expiry', zh: '推送已过期，请设置新的过期时间' },
  'push.nothingToRetry': { en: 'every device has displayed the push', zh: '所有设备都已显示该推送' },
} as const;

const systemCustom = {
  'systemCustom.packageName': {
    en: 'must be an Android package name (e.g. com.example.app)',
    zh: '必须是 Android 包名（如 com.example.app）',
  },
  'systemCustom.noTargets': { en: 'choose at least one device or group', zh: '请至少选择一台设备或一个分组' },
  'systemCustom.unknownApp': { en: '{pkg} is not one of your applications', zh: '{pkg} 不是您的应用' },
  'systemCustom.duplicateApp': { en: '{pkg} is listed twice', zh: '{pkg} 重复' },
  'systemCustom.passwordRequired': { en: 'set a password', zh: '请设置密码' },
  'systemCustom.fileType': {
    en: 'customization files must be jpg, png, webp, gif, mp4, webm or zip, their bytes matching their name',
    zh: '定制文件只能是 jpg、png、webp、gif、mp4、webm 或 zip，且内容与文件名一致',
  },
  'systemCustom.notWallpaper': {
    en: 'the wallpaper must be a jpg, png or webp image uploaded for customization',
    zh: '壁纸必须是为定制上传的 jpg、png 或 webp 图片',
  },
  'systemCustom.notAnimation': {
    en: 'the boot animation must be an mp4 or webm video, a gif, or a zip of PNG/JPG frames uploaded for customization',
    zh: '开机动画必须是为定制上传的 mp4/webm 视频、gif 或 PNG/JPG 帧的 zip 包',
  },
  'systemCustom.imageBroken': { en: 'the image cannot be read', zh: '无法读取该图片' },
  'systemCustom.wallpaperTooLarge': { en: 'the wallpaper must not exceed {n} MB', zh: '壁纸不能超过 {n} MB' },
  'systemCustom.wallpaperPixels': {
    en: 'each side of the wallpaper must be {min} to {max} pixels (it is {width}×{height})',
    zh: '壁纸每边须为 {min} 到 {max} 像素（当前为 {width}×{height}）',
  },
  'systemCustom.zipBroken': { en: 'the zip cannot be read', zh: '无法读取该 zip 包' },
  'systemCustom.zipEmpty': { en: 'the zip holds no frames', zh: 'zip 包中没有帧图片' },
  'systemCustom.zipTooMany': { en: 'at most {max} frames', zh: '最多 {max} 帧' },
  'systemCustom.zipEntry': { en: 'frame {name} is not a PNG or JPG image', zh: '帧 {name} 不是 PNG 或 JPG 图片' },
  'systemCustom.zipTooLarge': {
    en: 'frames must not exceed {each} MB each and {total} MB in all',
    zh: '每帧不能超过 {each} MB，总计不能超过 {total} MB',
  },
  'systemCustom.nothingToPublish': { en: 'there are no unpublished changes', zh: '没有未发布的修改' },
} as const;

const fence = {
  'fence.lngRange': { en: 'longitude must be between -180 and 180', zh: '经度必须在 -180 到 180 之间' },
  'fence.latRange': { en: 'latitude must be between -90 and 90', zh: '纬度必须在 -90 到 90 之间' },
  'fence.radiusPositive': { en: 'the radius must be greater than 0', zh: '半径必须大于 0' },
  'fence.radiusRange': { en: 'the radius must be 10 m to 100 km', zh: '半径必须在 10 米到 100 千米之间' },
  'fence.ringTooFew': { en: 'a polygon needs at least 3 distinct points', zh: '多边形至少需要 3 个不同的点' },
  'fence.ringTooMany': { en: 'a polygon has at most 500 points', zh: '多边形最多 500 个点' },
  'fence.selfIntersecting': {
    en: 'the polygon crosses itself (near {lng}, {lat})',
    zh: '多边形的边相互交叉（约在 {lng}, {lat}）',
  },
  'fence.ringFlat': { en: 'the polygon encloses no area', zh: '多边形没有面积' },
  'fence.timeOfDay': { en: 'must be a time HH:mm', zh: '必须是 HH:mm 格式的时间' },
  'fence.weekday': { en: 'must be a weekday 1 (Monday) to 7 (Sunday)', zh: '必须是 1（周一）到 7（周日）' },
  'fence.daysRequired': { en: 'choose at least one day', zh: '请至少选择一天' },
  'fence.idRequired': { en: 'give the fence id', zh: '请提供围栏 ID' },
  'fence.tooMany': { en: 'a tenant holds at most {max} fences', zh: '每个租户最多 {max} 个围栏' },
  'fence.stale': {
    en: 'the fence was changed by someone else meanwhile; reload it',
    zh: '该围栏已被他人修改，请刷新后再试',
  },
  'fence.nameTaken': { en: 'a fence named {name} exists', zh: '已存在名为 {name} 的围栏' },
  'fence.enteredTitle': { en: 'A device entered a fence', zh: '设备进入围栏' },
  'fence.leftTitle': { en: 'A device left a fence', zh: '设备离开围栏' },
} as const;

export const MESSAGES = {
  ...push,
  ...systemCustom,
  ...fence,
  ...fileAcquisition,
  ...pkg,
  ...application,
  ...inbox,
  ...notice,
  ...flowRate,
  ...workOrder,
  ...http,
  ...auth,
  ...user,
  ...role,
  ...department,
  ...identity,
  ...upload,
  ...device,
  ...deviceModel,
  ...registry,
  ...task,
  ...dashboard,
  ...integration,
  ...print,
  ...openApi,
  ...markup,
  ...rules,
  ...menu,
  ...order,
  ...upgrade,
  ...database,
  ...aiLibrary,
} as const satisfies Record<string, { en: string; zh: string }>;

export type Language = 'zh' | 'en';
export type MessageKey = keyof typeof MESSAGES;

/** What `notFound(what)` names: "{what} does not exist". */
export const NOUNS = {
  resource: '资源',
  device: '设备',
  'device model': '设备型号',
  group: '分组',
  'parent group': '上级分组',
  batch: '批量任务',
  task: '任务',
  job: '打印任务',
  delivery: '回调记录',
  'app key': '应用密钥',
  'identity submission': '认证资料',
  session: '会话',
  'sub-account': '子账号',
  role: '角色',
  user: '用户',
  department: '部门',
  'parent department': '上级部门',
  notice: '公告',
  message: '消息',
  'menu item': '菜单项',
  'menu version': '菜单版本',
  'linked account': '关联账号',
  package: '套餐',
  order: '订单',
  SIM: '流量卡',
  'work order': '工单',
  'canned reply': '快捷回复',
  attachment: '附件',
  'file request': '文件请求',
  'recognition job': '识别任务',
  image: '图片',
  deployment: '部署任务',
  'software package': '软件包',
  upload: '上传',
  firmware: '固件',
  release: '升级发布',
  push: '推送',
  profile: '定制方案',
  fence: '围栏',
} as const satisfies Record<string, string>;
/** A noun is said as itself in en and by this table in zh. */
export type Noun = keyof typeof NOUNS;

/** Field names as the console's forms label them in zh (a message about a field reads "label：problem"; en says the path). */
export const FIELD_LABELS_ZH: Record<string, string> = {
  radiusM: '半径',
  ring: '多边形',
  center: '圆心',
  shape: '形状',
  dwellS: '停留时间',
  alertOn: '告警规则',
  schedule: '时间计划',
  days: '星期',
  groupIds: '分组',
  username: '用户名',
  password: '密码',
  oldPassword: '原密码',
  confirmPassword: '确认密码',
  mobile: '手机号',
  captcha: '图形验证码',
  smsCode: '短信验证码',
  email: '电子邮箱',
  nickname: '昵称',
  realName: '真实姓名',
  idNumber: '身份证号',
  companyName: '企业名称',
  creditCode: '统一社会信用代码',
  legalPerson: '法人',
  sn: '序列号',
  bindKey: '绑定码',
  name: '名称',
  remark: '备注',
  groupId: '分组',
  parentId: '上级分组',
  departmentId: '部门',
  roleIds: '角色',
  deviceIds: '设备',
  modelId: '型号',
  model: '型号',
  code: '编码',
  keyword: '关键词',
  filename: '文件名',
  file: '文件',
  content: '内容',
  callbackUrl: '回调地址',
  path: '路径',
  component: '页面组件',
  redirect: '重定向',
  'meta.activeMenu': '高亮菜单',
  ipAllowList: 'IP 白名单',
  rateLimit: '调用频率上限',
  from: '开始时间',
  to: '结束时间',
  tz: '时区',
  pageNo: '页码',
  pageSize: '每页条数',
  body: '请求体',
  query: '查询参数',
  params: '路径参数',
  id: 'ID',
  dataScope: '数据范围',
  permissions: '权限',
  description: '描述',
  reassignTo: '接收角色',
  exitPassword: '退出密码',
  unlockPassword: '解锁密码',
  pkg: '应用',
  apps: '应用',
  packages: '应用',
  userIds: '用户',
  lines: '购买明细',
  clientRequestId: '请求号',
  dataMb: '流量',
  validityDays: '有效期',
  priceFen: '价格',
  perSimLimit: '每卡限购',
  carriers: '运营商',
  planMinMb: '适用资费下限',
  planMaxMb: '适用资费上限',
  reason: '原因',
  iccid: 'ICCID',
  iccids: 'ICCID',
  packageId: '套餐',
  descriptionHtml: '描述',
  bodyHtml: '内容',
  attachments: '附件',
  orderIds: '订单',
  assigneeId: '处理人',
  targets: '时限',
  rating: '评分',
  comment: '评价',
  priority: '优先级',
};

/** The `{name}`s of a template. */
type Placeholders<S extends string> = S extends `${string}{${infer P}}${infer Rest}` ? P | Placeholders<Rest> : never;
type NamesOf<K extends MessageKey> = Placeholders<(typeof MESSAGES)[K]['en']>;

/** A message by key with its values: what `data.fields[].key/params` carry and what a `{why}` may hold. */
export interface Keyed {
  key: MessageKey;
  params?: MessageParams;
}
/** A list is said joined ("; " in en, "；" in zh). */
export type ParamValue = string | number | Keyed | readonly ParamValue[];
export type MessageParams = Record<string, ParamValue>;

/** The values a key needs: exactly its placeholders (`{what}` a noun). */
export type ParamsOf<K extends MessageKey> = { [P in NamesOf<K>]: P extends 'what' ? Noun : ParamValue };
/** The arguments after a key: its values when it has placeholders, nothing (or an empty object) when not. */
export type ParamsArg<K extends MessageKey> = [NamesOf<K>] extends [never]
  ? [params?: Record<string, never> | null]
  : [params: ParamsOf<K>];

/** The keys whose text has no values. */
export type PlainKey = { [K in MessageKey]: [NamesOf<K>] extends [never] ? K : never }[MessageKey];

/** A typed `{ key, params }`, for a message held as a value (a `{why}`, a row's problem). */
export const keyed = <K extends MessageKey>(key: K, ...[params]: ParamsArg<K>): Keyed =>
  params ? { key, params: params as MessageParams } : { key };

export const isMessageKey = (s: unknown): s is MessageKey => typeof s === 'string' && Object.hasOwn(MESSAGES, s);

const isKeyed = (v: unknown): v is Keyed => typeof v === 'object' && v !== null && isMessageKey((v as Keyed).key);

function sayValue(name: string, value: ParamValue | undefined, lang: Language): string {
  if (value === undefined) return '';
  if (Array.isArray(value))
    return value.map((v: ParamValue) => sayValue(name, v, lang)).join(lang === 'zh' ? '；' : '; ');
  if (isKeyed(value)) return renderMessage(lang, value.key, value.params);
  if (typeof value === 'object') return '';
  const s = String(value);
  if (lang === 'en') return s;
  if (name === 'what') return (NOUNS as Record<string, string>)[s] ?? s;
  if (name === 'field') return fieldLabel(s, lang);
  return s;
}

/** The text of a key in a language, its values put in. An unknown key is said as itself. */
export function renderMessage(lang: Language, key: string, params?: MessageParams | null): string {
  const texts = isMessageKey(key) ? MESSAGES[key] : undefined;
  if (!texts) return key;
  return texts[lang].replace(/\{(\w+)\}/g, (_, name: string) => sayValue(name, params?.[name], lang));
}

/** The label of a field path (its last segment) in a language: en says the path as it is. */
export const fieldLabel = (path: string, lang: Language): string =>
  lang === 'zh' ? (FIELD_LABELS_ZH[path.split('.').pop() ?? path] ?? path) : path;

/** "field: problem" in en, "标签：问题" in zh. */
export const sayAboutField = (field: string, text: string, lang: Language): string =>
  lang === 'zh' ? `${fieldLabel(field, lang)}：${text}` : `${field}: ${text}`;

/** The placeholders of a template, for the catalogue's own test. */
export const placeholdersOf = (template: string): string[] =>
  [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
