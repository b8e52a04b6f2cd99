/**
 * The permission catalogue (DESIGN §3, issue 12): every button and call of the console names one of these
 * codes. Roles group them; the platform role `Admin` holds all of them. A route declares the code it needs
 * (`config.permission` on the server), a button hides itself when the user lacks it, and the role screen
 * draws this catalogue as a tree of sections.
 */
export const ADMIN_ROLE = 'Admin';

export const PERMISSIONS = {
  deviceView: 'device:view',
  deviceEdit: 'device:edit',
  deviceReboot: 'device:reboot',
  deviceShutdown: 'device:shutdown',
  /** See and cancel the tasks sent to the account's devices. */
  deviceTask: 'device:task',
  /** Bind and unbind devices of the account. */
  deviceBind: 'device:bind',
  /** Create, rename, move and delete device groups. */
  deviceGroup: 'device:group',
  /** The account's print jobs and their previews. */
  printView: 'print:view',
  /** App keys of the open API, their logs and webhooks, test prints, canceling print jobs. */
  integrationManage: 'integration:manage',
  /** The tenant's users: sub-accounts for a customer, staff users for the platform. */
  userEdit: 'system:user:edit',
  /** The tenant's roles and what they hold. */
  roleEdit: 'system:role:edit',
  /** The tenant's department tree. */
  departmentEdit: 'system:department:edit',
  /** The tenant's system log (staff: every tenant's). */
  logView: 'system:log:view',
  /** The account's SIMs: the traffic query, usage charts, export, and the top-up records. */
  flowRateView: 'flowRate:view',
  /** Buy traffic packages for the account's SIMs and pay for them. */
  flowRateBuy: 'flowRate:buy',
  /** Platform staff: the traffic package catalogue ("mall goods"). */
  flowRateGoods: 'flowRate:goods',
  /** Platform staff: every tenant's orders, and refunds. */
  flowRateRefund: 'flowRate:refund',
  /** The account's work orders: read them and their conversation (within the role's data scope). */
  workOrderView: 'workOrder:view',
  /** Open, edit, reply to, withdraw, reopen and rate the account's work orders. */
  workOrderEdit: 'workOrder:edit',
  /** Platform staff: every tenant's work orders: the queue, assignment, replies, internal notes, resolving. */
  workOrderHandle: 'workOrder:handle',
  /** Platform staff: the response and resolution targets per priority, and the shared canned replies. */
  workOrderSettings: 'workOrder:settings',
  /** Firmware packages, upgrade releases and their progress; each device's version history. */
  upgradeView: 'upgrade:view',
  /** Upload firmware; create, promote, pause, resume, cancel and retry upgrade releases. */
  upgradeEdit: 'upgrade:edit',
  /** The account's applications (APKs and their versions), install tasks and each device's installed apps. */
  applicationView: 'application:view',
  /** Upload applications; install, upgrade and uninstall them; the required-apps policy. */
  applicationEdit: 'application:edit',
  /** Files acquired from the account's devices, and downloading them. */
  fileAcquisitionView: 'fileAcquisition:view',
  /** Ask devices for files and logs. */
  fileAcquisitionEdit: 'fileAcquisition:edit',
  /** AI model packages, their deployments, and cloud AI jobs with their results. */
  aiLibraryView: 'aiLibrary:view',
  /** Upload and deploy AI models; run cloud AI jobs (text recognition). */
  aiLibraryEdit: 'aiLibrary:edit',
  /** Geofences: the fence list and map, each fence's devices inside and outside, enter/leave events, device tracks. */
  fenceView: 'fence:view',
  /** Draw, edit, schedule, assign and delete geofences. */
  fenceEdit: 'fence:edit',
  /** System customization profiles (boot animation, desktop, wallpaper, default app, top-screen mode, app lock). */
  systemCustomView: 'systemCustom:view',
  /** Build, version and assign customization profiles; set the kiosk exit and app-lock passwords. */
  systemCustomEdit: 'systemCustom:edit',
  /** Pushes to devices and their per-device delivery (push query). */
  pushView: 'push:view',
  /** Send, schedule, cancel and retry pushes. */
  pushEdit: 'push:edit',
  /** Platform staff: identity review. */
  identityReview: 'identity:review',
  /** Platform staff: announcements. */
  noticeEdit: 'notice:edit',
  /** Platform staff: the device model catalogue. */
  deviceModelManage: 'device:model:manage',
  /** Platform staff: factory registration of devices (single and CSV import). */
  deviceRegister: 'device:register',
  /** Platform staff: the route records every user's menu is built from. */
  menuEdit: 'system:menu:edit',
} as const;

export type Permission = (typeof PERMISSIONS)[keyof typeof PERMISSIONS];

/** Who may ever hold a permission: any tenant's roles, or only the platform's staff roles. */
export type PermissionAudience = 'tenant' | 'platform';

export interface PermissionEntry {
  code: Permission;
  name: { zh: string; en: string };
  audience: PermissionAudience;
}

export interface PermissionSection {
  /** A stable key of the section (a tree node of the role screen, never granted itself). */
  key: string;
  name: { zh: string; en: string };
  permissions: PermissionEntry[];
}

const p = (code: Permission, zh: string, en: string, audience: PermissionAudience = 'tenant'): PermissionEntry => ({
  code,
  name: { zh, en },
  audience,
});

/** The catalogue, grouped by section, in the order the role screen shows it. */
export const PERMISSION_CATALOGUE: PermissionSection[] = [
  {
    key: 'device',
    name: { zh: '我的设备', en: 'My devices' },
    permissions: [
      p(PERMISSIONS.deviceView, '查看设备', 'View devices'),
      p(PERMISSIONS.deviceEdit, '编辑设备', 'Edit devices'),
      p(PERMISSIONS.deviceBind, '绑定与解绑设备', 'Bind and unbind devices'),
      p(PERMISSIONS.deviceGroup, '管理设备分组', 'Manage device groups'),
      p(PERMISSIONS.deviceReboot, '重启设备', 'Reboot devices'),
      p(PERMISSIONS.deviceShutdown, '关闭设备', 'Shut devices down'),
      p(PERMISSIONS.deviceTask, '查看与取消设备任务', 'View and cancel device tasks'),
    ],
  },
  {
    key: 'integration',
    name: { zh: '系统集成', en: 'Integration' },
    permissions: [
      p(PERMISSIONS.printView, '查看打印任务', 'View print jobs'),
      p(PERMISSIONS.integrationManage, '管理应用密钥与回调', 'Manage app keys and callbacks'),
    ],
  },
  {
    key: 'flowRate',
    name: { zh: '流量管理', en: 'Data traffic' },
    permissions: [
      p(PERMISSIONS.flowRateView, '查看流量与充值记录', 'View data traffic and top-up records'),
      p(PERMISSIONS.flowRateBuy, '购买流量套餐', 'Buy traffic packages'),
    ],
  },
  {
    key: 'workOrder',
    name: { zh: '我的工单', en: 'Work orders' },
    permissions: [
      p(PERMISSIONS.workOrderView, '查看工单', 'View work orders'),
      p(PERMISSIONS.workOrderEdit, '提交与回复工单', 'Open and reply to work orders'),
    ],
  },
  {
    key: 'application',
    name: { zh: '应用管理', en: 'Applications' },
    permissions: [
      p(PERMISSIONS.applicationView, '查看应用与安装任务', 'View applications and installs'),
      p(PERMISSIONS.applicationEdit, '上传、安装与卸载应用', 'Upload, install and uninstall applications'),
      p(PERMISSIONS.fileAcquisitionView, '查看与下载获取的文件', 'View and download acquired files'),
      p(PERMISSIONS.fileAcquisitionEdit, '向设备获取文件', 'Acquire files from devices'),
    ],
  },
  {
    key: 'upgrade',
    name: { zh: '升级管理', en: 'Upgrades' },
    permissions: [
      p(PERMISSIONS.upgradeView, '查看固件与升级任务', 'View firmware and upgrade tasks'),
      p(PERMISSIONS.upgradeEdit, '上传固件与管理升级任务', 'Upload firmware and run upgrades'),
    ],
  },
  {
    key: 'aiLibrary',
    name: { zh: 'AI库', en: 'AI library' },
    permissions: [
      p(PERMISSIONS.aiLibraryView, '查看AI模型与识别结果', 'View AI models and results'),
      p(PERMISSIONS.aiLibraryEdit, '部署AI模型与运行云端识别', 'Deploy AI models and run cloud recognition'),
    ],
  },
  {
    key: 'fence',
    name: { zh: '地理围栏', en: 'Geofencing' },
    permissions: [
      p(PERMISSIONS.fenceView, '查看围栏、围栏事件与设备轨迹', 'View fences, their events and device tracks'),
      p(PERMISSIONS.fenceEdit, '绘制、编辑与分配围栏', 'Draw, edit and assign fences'),
    ],
  },
  {
    key: 'systemCustom',
    name: { zh: '系统定制', en: 'System customization' },
    permissions: [
      p(PERMISSIONS.systemCustomView, '查看定制方案', 'View customization profiles'),
      p(PERMISSIONS.systemCustomEdit, '编辑与分配定制方案', 'Edit and assign customization profiles'),
    ],
  },
  {
    key: 'push',
    name: { zh: '推送管理', en: 'Push' },
    permissions: [
      p(PERMISSIONS.pushView, '查看推送与送达情况', 'View pushes and their delivery'),
      p(PERMISSIONS.pushEdit, '发送与重试推送', 'Send and retry pushes'),
    ],
  },
  {
    key: 'system',
    name: { zh: '系统管理', en: 'Administration' },
    permissions: [
      p(PERMISSIONS.userEdit, '管理用户', 'Manage users'),
      p(PERMISSIONS.roleEdit, '管理角色', 'Manage roles'),
      p(PERMISSIONS.departmentEdit, '管理部门', 'Manage departments'),
      p(PERMISSIONS.logView, '查看系统日志', 'View the system log'),
    ],
  },
  {
    key: 'platform',
    name: { zh: '平台运营', en: 'Platform' },
    permissions: [
      p(PERMISSIONS.identityReview, '审核实名认证', 'Review identities', 'platform'),
      p(PERMISSIONS.noticeEdit, '发布系统公告', 'Publish announcements', 'platform'),
      p(PERMISSIONS.deviceModelManage, '管理设备型号', 'Manage device models', 'platform'),
      p(PERMISSIONS.deviceRegister, '出厂登记设备', 'Register devices at the factory', 'platform'),
      p(PERMISSIONS.menuEdit, '管理菜单', 'Manage menus', 'platform'),
      p(PERMISSIONS.flowRateGoods, '管理流量套餐', 'Manage traffic packages', 'platform'),
      p(PERMISSIONS.flowRateRefund, '查看所有订单与退款', "See every account's orders and refund", 'platform'),
      p(PERMISSIONS.workOrderHandle, '处理所有账户的工单', "Handle every account's work orders", 'platform'),
      p(
        PERMISSIONS.workOrderSettings,
        '设置工单时效与常用回复',
        'Set work order targets and canned replies',
        'platform',
      ),
    ],
  },
];

/** Every code of the catalogue, flat. */
export const ALL_PERMISSIONS: Permission[] = PERMISSION_CATALOGUE.flatMap((s) => s.permissions.map((e) => e.code));

/** What a customer's main account (is_super = 1) holds inside its own tenant: every tenant permission. */
export const CUSTOMER_PERMISSIONS: string[] = PERMISSION_CATALOGUE.flatMap((s) =>
  s.permissions.filter((e) => e.audience === 'tenant').map((e) => e.code),
);

/** Permissions meant for platform staff only; their routes also refuse a caller outside the platform tenant. */
export const STAFF_PERMISSIONS: string[] = PERMISSION_CATALOGUE.flatMap((s) =>
  s.permissions.filter((e) => e.audience === 'platform').map((e) => e.code),
);

/**
 * A role's data scope (issue 12): which rows of the device list (and, when they exist, work orders and orders)
 * its holders see inside their tenant. Applied in the SQL. A user with several roles gets the widest.
 */
export const DATA_SCOPES = ['all', 'department', 'own'] as const;
export type DataScope = (typeof DATA_SCOPES)[number];
