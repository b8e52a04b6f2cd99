import { z } from 'zod';
import { NO_CONTROL_MSG, hasNoControl, isPhone, isStrongPassword, isUsername } from './validators.ts';
import { TOKEN_NAME } from './constants.ts';

/**
 * Signing in and out (SPEC §3–§7, DESIGN §3): the captcha, SMS codes, registration, login, the refresh cookie.
 * Messages are i18n keys the console translates; the server sends them in en.
 */
export const REFRESH_COOKIE = 'cpc_refresh';

export const captchaFields = {
  captchaId: z.string().max(64).optional(),
  captcha: z.string().max(16).optional(),
};

export const loginBody = z
  .object({
    /** A user name or a mobile number. */
    username: z.string().trim().min(1, 'rule.usernameRequired').max(32).refine(hasNoControl, NO_CONTROL_MSG),
    password: z.string().min(6, 'rule.passwordMin6').max(64),
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
    mobile: z.string().refine(isPhone, 'rule.mobile'),
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
    username: z.string().refine(isUsername, 'rule.username'),
    mobile: z.string().refine(isPhone, 'rule.mobile'),
    smsCode: z.string().regex(/^\d{6}$/, 'rule.smsCode'),
    password: z.string().refine(isStrongPassword, 'rule.strongPassword'),
    confirmPassword: z.string(),
  })
  .strict()
  .refine((b) => b.password === b.confirmPassword, { path: ['confirmPassword'], message: 'rule.passwordMismatch' });
export type RegisterBody = z.infer<typeof registerBody>;
