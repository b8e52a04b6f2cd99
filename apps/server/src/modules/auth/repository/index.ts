/** The auth module's statements: signing in and out, and social login. */
export { AuthRepository, type NewAccount, type NewSession, type NewSmsCode } from './sessions.ts';
export { SocialRepository, type Identity, type NewFlow } from './social.ts';
