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
    /** A social-login link ticket: the identity the ticket names is linked to the new account. */
    ticket: z.string().max(100).optional(),
  })
  .strict()
  .refine((b) => b.password === b.confirmPassword, { path: ['confirmPassword'], message: 'rule.passwordMismatch' });
export type RegisterBody = z.infer<typeof registerBody>;

/** Social login (OpenID Connect / OAuth 2.0, issue 12): one configured identity provider, as the login page lists it. */
export const socialProvider = z.object({ id: z.string(), name: z.string() });
export type SocialProvider = z.infer<typeof socialProvider>;
export const socialProvidersResult = z.array(socialProvider);

const callbackParam = z.string().max(4000).optional();

/**
 * `POST /socialLogin`: `{ provider }` starts a flow (answers `{ url }`, the authorization URL); the callback's query
 * (`{ code, state, … }`) finishes it.
 */
export const socialLoginBody = z
  .object({
    provider: z.string().max(30).optional(),
    code: callbackParam,
    state: callbackParam,
    iss: callbackParam,
    session_state: callbackParam,
    error: callbackParam,
    error_description: callbackParam,
    error_uri: callbackParam,
    scope: callbackParam,
    authuser: callbackParam,
    prompt: callbackParam,
  })
  .strict();
export type SocialLoginBody = z.infer<typeof socialLoginBody>;

/** An identity the provider vouched for that no account has yet: link it with a password, or register. */
export const socialLinkOffer = z.object({
  ticket: z.string(),
  provider: z.string(),
  providerName: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
});
export type SocialLinkOffer = z.infer<typeof socialLinkOffer>;

export const socialStartResult = z.object({ url: z.string() });
export const socialLinkResult = z.object({ link: socialLinkOffer });
export const socialLinkedResult = z.object({ linked: z.object({ provider: z.string(), providerName: z.string() }) });
export const socialLoginResult = z.union([socialStartResult, socialLinkResult, socialLinkedResult, loginResult]);
export type SocialLoginResult = z.infer<typeof socialLoginResult>;

/** `POST /socialLogin/link`: the ticket and an existing account's password, once. */
export const socialLinkBody = z
  .object({
    ticket: z.string().min(1).max(100),
    username: loginBody.shape.username,
    password: loginBody.shape.password,
    ...captchaFields,
  })
  .strict();
export type SocialLinkBody = z.infer<typeof socialLinkBody>;

/** `POST /socialLogin/identities`: a signed-in user links another identity. */
export const socialIdentityStartBody = z.object({ provider: z.string().min(1).max(30) }).strict();

/** One linked identity, as the personal centre lists it. */
export const linkedIdentity = z.object({
  id: z.number().int(),
  provider: z.string(),
  providerName: z.string(),
  subject: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  createdAt: z.string(),
});
export type LinkedIdentity = z.infer<typeof linkedIdentity>;
