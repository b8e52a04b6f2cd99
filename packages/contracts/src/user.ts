import { z } from 'zod';
import { isChineseName, isCreditCode, isIdCard, isPhone, isStrongPassword, isUsername } from './validators.ts';

/** Accounts (SPEC §3–§7, DESIGN §3). Messages are i18n keys the console translates; the server sends them in en. */

export const TOKEN_NAME = 'token';
export const REFRESH_COOKIE = 'cpc_refresh';

export const captchaFields = {
  captchaId: z.string().max(64).optional(),
  captcha: z.string().max(16).optional(),
};

export const loginBody = z
  .object({
    /** A user name or a mobile number. */
    username: z.string().trim().min(1, 'user name cannot be empty').max(32),
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

/** Seconds before another code may be sent to the same number. */
export const SMS_RESEND_SECONDS = 60;
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

/** Identity authentication status of a tenant (DESIGN §3). */
export const AUTH_STATUS = { notSubmitted: 0, authenticated: 1, waiting: 2, failed: 3 } as const;
export type AuthStatus = (typeof AUTH_STATUS)[keyof typeof AUTH_STATUS];

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

export const individualIdentity = z
  .object({
    type: z.literal('individual'),
    realName: z.string().trim().min(2).max(30),
    idNumber: z.string().refine(isIdCard, 'ID number format must be correct'),
    idFrontKey: z.string().min(1, 'front ID photo required').max(300),
    idBackKey: z.string().min(1, 'back ID photo required').max(300),
  })
  .strict();

export const enterpriseIdentity = z
  .object({
    type: z.literal('enterprise'),
    companyName: z.string().trim().min(2).max(100),
    creditCode: z.string().refine(isCreditCode, 'unified social credit code format must be correct'),
    legalPerson: z.string().trim().min(2).max(30),
    licenceKey: z.string().min(1, 'business licence image required').max(300),
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
    keyword: z.string().max(50).optional(),
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

export const UPLOAD_MAX_BYTES = 10 * 1024 * 1024;
export const UPLOAD_ACCEPT = ['image/jpeg', 'image/png'];

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
