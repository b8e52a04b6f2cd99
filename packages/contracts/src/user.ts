import { z } from 'zod';
import {
  EMAIL_MAX,
  NICKNAME_MAX,
  NO_CONTROL_MSG,
  hasNoControl,
  isChineseName,
  isEmail,
  isPhone,
  isStrongPassword,
  isUsername,
} from './validators.ts';
import { pageQuery } from './envelope.ts';
import { DATA_SCOPES } from './permissions.ts';

export {
  AUTH_STATUS,
  SMS_RESEND_SECONDS,
  TOKEN_NAME,
  UPLOAD_ACCEPT,
  UPLOAD_MAX_BYTES,
  type AuthStatus,
} from './constants.ts';

/** The signed-in user (SPEC §2, DESIGN §3): who they are, password, the personal centre, sub-accounts. */

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
  /**
   * Which of the account's devices (and orders) the user reaches: the widest data scope of its roles (`all` for
   * a main account and the platform Admin). Only `all` may file a device under another department.
   */
  dataScope: z.enum(DATA_SCOPES),
  /** The user's own department, null for none: with `dataScope` it says which departments the user may manage. */
  departmentId: z.number().int().nullable(),
});
export type UserInfo = z.infer<typeof userInfo>;

export const changePasswordBody = z
  .object({
    oldPassword: z.string().min(1).max(64),
    password: z.string().refine(isStrongPassword, 'rule.strongPassword'),
    confirmPassword: z.string(),
  })
  .strict()
  .refine((b) => b.password === b.confirmPassword, { path: ['confirmPassword'], message: 'rule.passwordMismatch' });

export const checkPasswordBody = z.object({ password: z.string().min(1).max(64) }).strict();

export { isChineseName };

// ---------------------------------------------------------------------------------------------------------------
// Personal centre (SPEC §2 /person/info, /setting/personalCenter)

const STRONG_PASSWORD_MESSAGE = 'rule.strongPassword';
const MOBILE_MESSAGE = 'rule.mobile';
const nickname = z.string().trim().max(NICKNAME_MAX, 'rule.maxChars').refine(hasNoControl, NO_CONTROL_MSG);
/** An e-mail address, or '' for none. */
const email = z
  .string()
  .trim()
  .max(EMAIL_MAX, 'rule.maxChars')
  .refine((v) => v === '' || isEmail(v), 'rule.email');
/** A mobile number, or '' / absent for none (sub-accounts). */
const optionalMobile = z
  .string()
  .trim()
  .refine((v) => v === '' || isPhone(v), MOBILE_MESSAGE);

export const roleOption = z.object({ id: z.number().int(), code: z.string(), name: z.string() });
export type RoleOption = z.infer<typeof roleOption>;
/**
 * A role the user forms offer: with its data scope, so a role wider than the caller's own scope (which the server
 * refuses to give) is shown but cannot be chosen.
 */
export const roleChoice = roleOption.extend({ dataScope: z.enum(DATA_SCOPES) });
export type RoleChoice = z.infer<typeof roleChoice>;

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
export const avatarBody = z
  .object({ avatarKey: z.string().min(1, 'upload.imageFirst').max(300).refine(hasNoControl, NO_CONTROL_MSG) })
  .strict();
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

export const sessionIdBody = z.object({ id: z.uuid('rule.sessionId') }).strict();

// ---------------------------------------------------------------------------------------------------------------
// Users (DESIGN §3, issue 12): a customer's sub-accounts (is_super = 2), managed by its main account (is_super = 1)
// or a sub-account with system:user:edit; the platform's staff users, through the same shapes under /system/user

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
  /** The user's department (issue 12), null for none. */
  departmentId: z.number().int().nullable(),
  departmentName: z.string().nullable(),
  /** A customer's main account or the platform's first administrator: listed, never managed by a sub-account. */
  isSuper: z.number().int(),
  createdAt: z.string(),
  lastLoginAt: z.string().nullable(),
});
export type SubAccountView = z.infer<typeof subAccountView>;

export const subAccountListQuery = pageQuery
  .extend({
    keyword: z.string().trim().max(50).refine(hasNoControl, NO_CONTROL_MSG).optional(),
    state: subAccountState.optional(),
    /** A department and every department below it. */
    departmentId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
    roleId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  })
  .strict();
export type SubAccountListQuery = z.infer<typeof subAccountListQuery>;

const roleIds = z.array(z.number().int().positive()).max(20, 'rule.maxRoles');
const userId = z.number().int().positive();
/** A department of the caller's tenant, or null for none. */
const departmentId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER).nullable();

export const subAccountCreateBody = z
  .object({
    username: z.string().refine(isUsername, 'rule.username'),
    nickname: nickname.default(''),
    mobile: optionalMobile.default(''),
    email: email.default(''),
    password: z.string().refine(isStrongPassword, STRONG_PASSWORD_MESSAGE),
    confirmPassword: z.string(),
    roleIds: roleIds.default([]),
    departmentId: departmentId.default(null),
  })
  .strict()
  .refine((b) => b.password === b.confirmPassword, { path: ['confirmPassword'], message: 'rule.passwordMismatch' });
export type SubAccountCreateBody = z.infer<typeof subAccountCreateBody>;

export const subAccountUpdateBody = z
  .object({ id: userId, nickname, mobile: optionalMobile, email, roleIds, departmentId: departmentId.optional() })
  .strict();
export type SubAccountUpdateBody = z.infer<typeof subAccountUpdateBody>;

export const subAccountStateBody = z.object({ id: userId, state: subAccountState }).strict();

export const subAccountPasswordBody = z
  .object({
    id: userId,
    password: z.string().refine(isStrongPassword, STRONG_PASSWORD_MESSAGE),
    confirmPassword: z.string(),
  })
  .strict()
  .refine((b) => b.password === b.confirmPassword, { path: ['confirmPassword'], message: 'rule.passwordMismatch' });

export const subAccountIdBody = z.object({ id: userId }).strict();
