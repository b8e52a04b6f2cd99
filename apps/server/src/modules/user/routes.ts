import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  REFRESH_COOKIE,
  avatarBody,
  captchaResult,
  changePasswordBody,
  checkPasswordBody,
  envelopeSchema,
  loginBody,
  loginResult,
  profileUpdateBody,
  profileView,
  registerBody,
  sessionIdBody,
  sessionView,
  smsSendBody,
  smsSendResult,
  tokenResult,
  userInfo,
} from '@cpc/contracts';
import { caller } from '../../plugins/auth.ts';
import { badRequest, ok } from '../../plugins/errors.ts';
import type { IssuedSession, UserService } from './service.ts';
import type { CaptchaProvider } from '../../lib/captcha.ts';
import type { RateLimit } from '../../config.ts';
import { perAddress } from '../../plugins/rate-limit.ts';

export const clientOf = (req: FastifyRequest) => ({ ip: req.ip, userAgent: String(req.headers['user-agent'] ?? '') });

const empty = envelopeSchema(z.null());

/** Per client address limits of the calls made before signing in (RATE_LIMIT_*). */
export interface AccountLimits {
  captcha: RateLimit;
  sms: RateLimit;
  register: RateLimit;
}

export const userRoutes: FastifyPluginAsyncZod<{ users: UserService; captcha: CaptchaProvider; refreshTtl: number; limits: AccountLimits }> = async (app, { users, captcha, refreshTtl, limits }) => {
  const setRefreshCookie = (req: FastifyRequest, reply: FastifyReply, issued: IssuedSession) => {
    reply.setCookie(REFRESH_COOKIE, issued.refreshToken, {
      httpOnly: true,
      sameSite: 'strict',
      secure: req.protocol === 'https',
      path: '/apiAdmin',
      maxAge: refreshTtl,
    });
    return ok(issued.result);
  };

  app.get('/captcha', { config: { auth: false, rateLimit: perAddress(limits.captcha) }, schema: { tags: ['account'], summary: 'A graphic captcha', response: { 200: envelopeSchema(captchaResult) } } }, async () => ok(await captcha.create()));

  app.post('/sms/send', { config: { auth: false, rateLimit: perAddress(limits.sms) }, schema: { tags: ['account'], summary: 'Send an SMS verification code', body: smsSendBody, response: { 200: envelopeSchema(smsSendResult) } } }, async (req) =>
    ok(await users.sendSms(req.body, clientOf(req))),
  );

  app.post('/register', { config: { auth: false, rateLimit: perAddress(limits.register) }, schema: { tags: ['account'], summary: 'Register an individual or enterprise customer', body: registerBody, response: { 200: envelopeSchema(loginResult) } } }, async (req, reply) =>
    setRefreshCookie(req, reply, await users.register(req.body, clientOf(req))),
  );

  for (const url of ['/user/v1/login', '/user/login']) {
    app.post(url, { config: { auth: false }, schema: { tags: ['account'], summary: 'Log in with user name or mobile number', body: loginBody, response: { 200: envelopeSchema(loginResult) } } }, async (req, reply) =>
      setRefreshCookie(req, reply, await users.login(req.body, clientOf(req))),
    );
  }

  app.get('/refreshToken', { config: { auth: false }, schema: { tags: ['account'], summary: 'Exchange the refresh cookie for a new access token', response: { 200: envelopeSchema(tokenResult) } } }, async (req, reply) => {
    const issued = await users.refresh(req.cookies[REFRESH_COOKIE], clientOf(req));
    setRefreshCookie(req, reply, issued);
    return ok({ token: issued.result.token, expiresIn: issued.result.expiresIn });
  });

  app.get('/logout', { schema: { tags: ['account'], summary: 'Log out: ends every session of the user', response: { 200: empty } } }, async (req, reply) => {
    await users.logout(caller(req), clientOf(req));
    reply.clearCookie(REFRESH_COOKIE, { path: '/apiAdmin' });
    return ok(null);
  });

  app.get('/expireToken', { schema: { tags: ['account'], summary: 'End the current session only (this browser); other sessions stay', response: { 200: empty } } }, async (req, reply) => {
    await users.endSession(caller(req), clientOf(req));
    reply.clearCookie(REFRESH_COOKIE, { path: '/apiAdmin' });
    return ok(null);
  });

  app.post('/socialLogin', { config: { auth: false }, schema: { tags: ['account'], summary: 'Social login: no social identity provider is configured on this server, so it always answers 400', body: z.object({ provider: z.string().max(30), code: z.string().max(500) }).strict() } }, async (req) => {
    throw badRequest('provider', `social login with "${req.body.provider}" is not enabled on this server`);
  });

  app.get('/user/v1/user/userInfo', { schema: { tags: ['account'], summary: 'The current user', response: { 200: envelopeSchema(userInfo) } } }, async (req) => ok(await users.userInfo(caller(req))));

  app.post('/user/v1/user/checkPassword', { schema: { tags: ['account'], summary: 'Check the current user password (screen-lock unlock)', body: checkPasswordBody, response: { 200: empty } } }, async (req) => {
    await users.checkPassword(caller(req), req.body.password, clientOf(req));
    return ok(null);
  });

  app.post('/user/v1/user/changePassword', { schema: { tags: ['account'], summary: 'Change the password; every other session ends', body: changePasswordBody, response: { 200: empty } } }, async (req) => {
    await users.changePassword(caller(req), req.body.oldPassword, req.body.password, clientOf(req));
    return ok(null);
  });

  // The personal centre (SPEC §2): profile, avatar and the user's own sessions.
  app.get('/user/v1/user/profile', { schema: { tags: ['account'], summary: "The current user's profile: nickname, e-mail, masked mobile, tenant, roles", response: { 200: envelopeSchema(profileView) } } }, async (req) =>
    ok(await users.profile(caller(req))),
  );

  app.post('/user/v1/user/updateProfile', { schema: { tags: ['account'], summary: 'Change the nickname and e-mail', body: profileUpdateBody, response: { 200: envelopeSchema(profileView) } } }, async (req) =>
    ok(await users.updateProfile(caller(req), req.body, clientOf(req))),
  );

  app.post('/user/v1/user/updateAvatar', { schema: { tags: ['account'], summary: 'Set the avatar to an image the user uploaded (jpg/png ≤ 10 MB)', body: avatarBody, response: { 200: envelopeSchema(profileView) } } }, async (req) =>
    ok(await users.setAvatar(caller(req), req.body.avatarKey, clientOf(req))),
  );

  app.get('/user/v1/user/sessions', { schema: { tags: ['account'], summary: "The user's active sessions (browsers signed in), the current one first", response: { 200: envelopeSchema(z.array(sessionView)) } } }, async (req) =>
    ok(await users.sessions(caller(req))),
  );

  app.post('/user/v1/user/revokeSession', { schema: { tags: ['account'], summary: 'Sign out one other session of the user', body: sessionIdBody, response: { 200: empty } } }, async (req) => {
    await users.revokeSession(caller(req), req.body.id, clientOf(req));
    return ok(null);
  });
};
