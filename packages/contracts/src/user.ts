import { z } from 'zod';
import { EMAIL_MAX, NICKNAME_MAX, NO_CONTROL_MSG, hasNoControl, isChineseName, isCreditCode, isEmail, isIdCard, isPhone, isStrongPassword, isUsername } from './validators.ts';
import { pageQuery } from './envelope.ts';
import { TOKEN_NAME } from './constants.ts';

export { AUTH_STATUS, SMS_RESEND_SECONDS, TOKEN_NAME, UPLOAD_ACCEPT, UPLOAD_MAX_BYTES, type AuthStatus } from './constants.ts';

/** Accounts (SPEC §3–§7, DESIGN §3). Messages are i18n keys the console translates; the server sends them in en. */

export const REFRESH_COOKIE = 'cpc_refresh';

export const captchaFields = {
  captchaId: z.string().max(64).optional(),
  captcha: z.string().max(16).optional(),
};

export const loginBody = z
  .object({
    /** A user name or a mobile number. */
    username: z.string().trim().min(1, 'user name cannot be empty').max(32).refine(hasNoControl, NO_CONTROL_MSG),
    password: z.string().min(6, 'password cannot be less than 6 characters').max(64),
    ...captchaFields,
  })
  .strict();
export type LoginBody = z.infer<typeof loginBody>;

export const loginResult = z.object({
  [TOKEN_NAME]: z.string(),
  status: z.number().int(),
  username: z.string(),
  is_super: z.number().int(),
  expiresIn: z.number().int(),
});
export type LoginResult = z.infer<typeof loginResult>;

export const tokenResult = z.object({ token: z.string(), expiresIn: z.number().int() });

export const captchaResult = z.object({
  enabled: z.boolean(),
  captchaId: z.string(),
  /** An SVG image (markup); empty when the captcha provider is `off`. */
  svg: z.string(),
  /** Seconds the captcha can be answered: the console draws a new one before it lapses. */
  expiresIn: z.number().int(),
});
export type CaptchaResult = z.infer<typeof captchaResult>;

export const smsPurpose = z.enum(['register']);

export const smsSendBody = z
  .object({
    mobile: z.string().refine(isPhone, 'must be 11 digits starting with 1'),
    purpose: smsPurpose.default('register'),
    ...captchaFields,
  })
  .strict();
export type SmsSendBody = z.infer<typeof smsSendBody>;

export const smsSendResult = z.object({ countdown: z.number().int() });

export const accountType = z.enum(['individual', 'enterprise']);
export type AccountType = z.infer<typeof accountType>;

export const registerBody = z
  .object({
    type: accountType,
    username: z.string().refine(isUsername, 'must be 4-20 letters, digits or underscores, starting with a letter'),
    mobile: z.string().refine(isPhone, 'must be 11 digits starting with 1'),
    smsCode: z.string().regex(/^\d{6}$/, 'must be the 6-digit code'),
    password: z.string().refine(isStrongPassword, 'must be 8-16 characters with upper and lower case letters and digits'),
    confirmPassword: z.string(),
  })
  .strict()
  .refine((b) => b.password === b.confirmPassword, { path: ['confirmPassword'], message: 'the two passwords do not match' });
export type RegisterBody = z.infer<typeof registerBody>;

export const userInfo = z.object({
  id: z.number().int(),
  username: z.string(),
  mobile: z.string().nullable(),
  avatar: z.string(),
  is_super: z.number().int(),
  /** Identity authentication status of the user's tenant: 1 means authenticated. */
  status: z.number().int(),
  is_authenticate: z.number().int(),
  attest_name: z.string(),
  tenantKind: z.enum(['individual', 'enterprise', 'platform']),
  admin: z.boolean(),
  roles: z.array(z.string()),
  permissions: z.array(z.string()),
});
export type UserInfo = z.infer<typeof userInfo>;

// names and image keys are stored and shown to reviewers: no control characters (PostgreSQL refuses NUL in text)
const identityText = (min: number, max: number) => z.string().trim().min(min).max(max).refine(hasNoControl, NO_CONTROL_MSG);
const imageKey = (required: string) => z.string().min(1, required).max(300).refine(hasNoControl, NO_CONTROL_MSG);

export const individualIdentity = z
  .object({
    type: z.literal('individual'),
    realName: identityText(2, 30),
    idNumber: z.string().refine(isIdCard, 'ID number format must be correct'),
    idFrontKey: imageKey('front ID photo required'),
    idBackKey: imageKey('back ID photo required'),
  })
  .strict();

export const enterpriseIdentity = z
  .object({
    type: z.literal('enterprise'),
    companyName: identityText(2, 100),
    creditCode: z.string().refine(isCreditCode, 'unified social credit code format must be correct'),
    legalPerson: identityText(2, 30),
    licenceKey: imageKey('business licence image required'),
  })
  .strict();

export const identityBody = z.discriminatedUnion('type', [individualIdentity, enterpriseIdentity]);
export type IdentityBody = z.infer<typeof identityBody>;

export const identityView = z.object({
  id: z.number().int(),
  tenantId: z.number().int(),
  type: accountType,
  status: z.number().int(),
  reason: z.string().nullable(),
  realName: z.string().nullable(),
  idNumber: z.string().nullable(),
  companyName: z.string().nullable(),
  creditCode: z.string().nullable(),
  legalPerson: z.string().nullable(),
  /** Signed, short-lived URLs of the images. */
  images: z.record(z.string(), z.string()),
  username: z.string(),
  mobile: z.string().nullable(),
  submittedAt: z.string(),
  reviewedAt: z.string().nullable(),
});
export type IdentityView = z.infer<typeof identityView>;

export const authenticateState = z.object({
  status: z.number().int(),
  type: accountType,
  submission: identityView.nullable(),
});
export type AuthenticateState = z.infer<typeof authenticateState>;

export const identityListQuery = z
  .object({
    pageNo: z.coerce.number().int().min(1).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(20),
    status: z.coerce.number().int().refine((s) => [1, 2, 3].includes(s), 'must be 1, 2 or 3').optional(),
    keyword: z.string().max(50).refine(hasNoControl, NO_CONTROL_MSG).optional(),
  })
  .strict();

export const identityApproveBody = z.object({ id: z.number().int().positive() }).strict();
export const identityRejectBody = z
  .object({ id: z.number().int().positive(), reason: z.string().trim().min(2).max(200) })
  .strict();

export const uploadTokenQuery = z.object({ bucket: z.enum(['permanentfile']).default('permanentfile') }).strict();
export const uploadTokenResult = z.object({
  token: z.string(),
  uploadUrl: z.string(),
  maxSize: z.number().int(),
  accept: z.array(z.string()),
  expiresIn: z.number().int(),
});
export type UploadTokenResult = z.infer<typeof uploadTokenResult>;
export const uploadResult = z.object({ key: z.string(), url: z.string(), size: z.number().int(), mime: z.string() });
export type UploadResult = z.infer<typeof uploadResult>;

export const changePasswordBody = z
  .object({
    oldPassword: z.string().min(1).max(64),
    password: z.string().refine(isStrongPassword, 'must be 8-16 characters with upper and lower case letters and digits'),
    confirmPassword: z.string(),
  })
  .strict()
  .refine((b) => b.password === b.confirmPassword, { path: ['confirmPassword'], message: 'the two passwords do not match' });

export const checkPasswordBody = z.object({ password: z.string().min(1).max(64) }).strict();

export { isChineseName };

// ---------------------------------------------------------------------------------------------------------------
// Personal centre (SPEC §2 /person/info, /setting/personalCenter)

const STRONG_PASSWORD_MESSAGE = 'must be 8-16 characters with upper and lower case letters and digits';
const MOBILE_MESSAGE = 'must be 11 digits starting with 1';
const nickname = z.string().trim().max(NICKNAME_MAX, `must be at most ${NICKNAME_MAX} characters`).refine(hasNoControl, NO_CONTROL_MSG);
/** An e-mail address, or '' for none. */
const email = z
  .string()
  .trim()
  .max(EMAIL_MAX, `must be at most ${EMAIL_MAX} characters`)
  .refine((v) => v === '' || isEmail(v), 'must be a valid e-mail address');
/** A mobile number, or '' / absent for none (sub-accounts). */
const optionalMobile = z.string().trim().refine((v) => v === '' || isPhone(v), MOBILE_MESSAGE);

export const roleOption = z.object({ id: z.number().int(), code: z.string(), name: z.string() });
export type RoleOption = z.infer<typeof roleOption>;

export const profileView = z.object({
  id: z.number().int(),
  username: z.string(),
  nickname: z.string(),
  email: z.string(),
  /** Masked: only the first 3 and last 4 digits are sent. */
  mobile: z.string().nullable(),
  /** A signed URL of the avatar image, '' when none. */
  avatar: z.string(),
  is_super: z.number().int(),
  tenantKind: z.enum(['individual', 'enterprise', 'platform']),
  tenantName: z.string(),
  /** Identity authentication status of the tenant (DESIGN §3). */
  authStatus: z.number().int(),
  attestName: z.string(),
  roles: z.array(roleOption),
  createdAt: z.string(),
});
export type ProfileView = z.infer<typeof profileView>;

export const profileUpdateBody = z.object({ nickname, email }).strict();
export type ProfileUpdateBody = z.infer<typeof profileUpdateBody>;

/** The object key an upload returned; it must be the caller's own jpg/png. */
export const avatarBody = z.object({ avatarKey: z.string().min(1, 'upload the image first').max(300).refine(hasNoControl, NO_CONTROL_MSG) }).strict();
export type AvatarBody = z.infer<typeof avatarBody>;

export const sessionView = z.object({
  id: z.string(),
  ip: z.string(),
  userAgent: z.string(),
  createdAt: z.string(),
  /** The last login or token refresh of the session. */
  lastActiveAt: z.string(),
  /** The session of this very request. */
  current: z.boolean(),
});
export type SessionView = z.infer<typeof sessionView>;

export const sessionIdBody = z.object({ id: z.uuid('must be a session id') }).strict();

// ---------------------------------------------------------------------------------------------------------------
// Sub-accounts (DESIGN §3): the main account (is_super = 1) manages its tenant's sub-accounts (is_super = 2)

export const subAccountState = z.enum(['active', 'disabled']);
export type SubAccountState = z.infer<typeof subAccountState>;

export const subAccountView = z.object({
  id: z.number().int(),
  username: z.string(),
  nickname: z.string(),
  mobile: z.string().nullable(),
  email: z.string(),
  state: subAccountState,
  roles: z.array(roleOption),
  createdAt: z.string(),
  lastLoginAt: z.string().nullable(),
});
export type SubAccountView = z.infer<typeof subAccountView>;

export const subAccountListQuery = pageQuery
  .extend({ keyword: z.string().trim().max(50).refine(hasNoControl, NO_CONTROL_MSG).optional(), state: subAccountState.optional() })
  .strict();
export type SubAccountListQuery = z.infer<typeof subAccountListQuery>;

const roleIds = z.array(z.number().int().positive()).max(20, 'at most 20 roles');
const userId = z.number().int().positive();

export const subAccountCreateBody = z
  .object({
    username: z.string().refine(isUsername, 'must be 4-20 letters, digits or underscores, starting with a letter'),
    nickname: nickname.default(''),
    mobile: optionalMobile.default(''),
    email: email.default(''),
    password: z.string().refine(isStrongPassword, STRONG_PASSWORD_MESSAGE),
    confirmPassword: z.string(),
    roleIds: roleIds.default([]),
  })
  .strict()
  .refine((b) => b.password === b.confirmPassword, { path: ['confirmPassword'], message: 'the two passwords do not match' });
export type SubAccountCreateBody = z.infer<typeof subAccountCreateBody>;

export const subAccountUpdateBody = z
  .object({ id: userId, nickname, mobile: optionalMobile, email, roleIds })
  .strict();
export type SubAccountUpdateBody = z.infer<typeof subAccountUpdateBody>;

export const subAccountStateBody = z.object({ id: userId, state: subAccountState }).strict();

export const subAccountPasswordBody = z
  .object({ id: userId, password: z.string().refine(isStrongPassword, STRONG_PASSWORD_MESSAGE), confirmPassword: z.string() })
  .strict()
  .refine((b) => b.password === b.confirmPassword, { path: ['confirmPassword'], message: 'the two passwords do not match' });

export const subAccountIdBody = z.object({ id: userId }).strict();
