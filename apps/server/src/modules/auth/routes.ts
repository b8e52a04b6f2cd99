import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  REFRESH_COOKIE,
  captchaResult,
  envelopeSchema,
  loginBody,
  loginResult,
  registerBody,
  smsSendBody,
  smsSendResult,
  tokenResult,
} from '@cpc/contracts';
import { caller } from '../../plugins/auth.ts';
import { badRequest, ok } from '../../plugins/errors.ts';
import type { AuthService, IssuedSession } from './service.ts';
import { clientOf } from '../../lib/sessions.ts';
import type { CaptchaProvider } from '../../lib/captcha.ts';
import type { RateLimit } from '../../config.ts';
import { perAddress } from '../../plugins/rate-limit.ts';

const empty = envelopeSchema(z.null());

/** Per client address limits of the calls made before signing in (RATE_LIMIT_*). */
export interface AccountLimits {
  captcha: RateLimit;
  sms: RateLimit;
  register: RateLimit;
}

export const authRoutes: FastifyPluginAsyncZod<{
  auth: AuthService;
  captcha: CaptchaProvider;
  refreshTtl: number;
  limits: AccountLimits;
}> = async (app, { auth, captcha, refreshTtl, limits }) => {
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

  app.get(
    '/captcha',
    {
      config: { auth: false, rateLimit: perAddress(limits.captcha) },
      schema: { tags: ['account'], summary: 'A graphic captcha', response: { 200: envelopeSchema(captchaResult) } },
    },
    async () => ok(await captcha.create()),
  );

  app.post(
    '/sms/send',
    {
      config: { auth: false, rateLimit: perAddress(limits.sms) },
      schema: {
        tags: ['account'],
        summary: 'Send an SMS verification code',
        body: smsSendBody,
        response: { 200: envelopeSchema(smsSendResult) },
      },
    },
    async (req) => ok(await auth.sendSms(req.body, clientOf(req))),
  );

  app.post(
    '/register',
    {
      config: { auth: false, rateLimit: perAddress(limits.register) },
      schema: {
        tags: ['account'],
        summary: 'Register an individual or enterprise customer',
        body: registerBody,
        response: { 200: envelopeSchema(loginResult) },
      },
    },
    async (req, reply) => setRefreshCookie(req, reply, await auth.register(req.body, clientOf(req))),
  );

  for (const url of ['/user/v1/login', '/user/login']) {
    app.post(
      url,
      {
        config: { auth: false },
        schema: {
          tags: ['account'],
          summary: 'Log in with user name or mobile number',
          body: loginBody,
          response: { 200: envelopeSchema(loginResult) },
        },
      },
      async (req, reply) => setRefreshCookie(req, reply, await auth.login(req.body, clientOf(req))),
    );
  }

  app.get(
    '/refreshToken',
    {
      config: { auth: false },
      schema: {
        tags: ['account'],
        summary: 'Exchange the refresh cookie for a new access token',
        response: { 200: envelopeSchema(tokenResult) },
      },
    },
    async (req, reply) => {
      const issued = await auth.refresh(req.cookies[REFRESH_COOKIE], clientOf(req));
      setRefreshCookie(req, reply, issued);
      return ok({ token: issued.result.token, expiresIn: issued.result.expiresIn });
    },
  );

  app.get(
    '/logout',
    {
      config: { access: 'signedIn' },
      schema: { tags: ['account'], summary: 'Log out: ends every session of the user', response: { 200: empty } },
    },
    async (req, reply) => {
      await auth.logout(caller(req), clientOf(req));
      reply.clearCookie(REFRESH_COOKIE, { path: '/apiAdmin' });
      return ok(null);
    },
  );

  app.get(
    '/expireToken',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['account'],
        summary: 'End the current session only (this browser); other sessions stay',
        response: { 200: empty },
      },
    },
    async (req, reply) => {
      await auth.endSession(caller(req), clientOf(req));
      reply.clearCookie(REFRESH_COOKIE, { path: '/apiAdmin' });
      return ok(null);
    },
  );

  app.post(
    '/socialLogin',
    {
      config: { auth: false },
      schema: {
        tags: ['account'],
        summary: 'Social login: no social identity provider is configured on this server, so it always answers 400',
        body: z.object({ provider: z.string().max(30), code: z.string().max(500) }).strict(),
      },
    },
    async (req) => {
      throw badRequest('provider', 'auth.socialDisabled', { provider: req.body.provider });
    },
  );
};
