import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  REFRESH_COOKIE,
  captchaResult,
  envelopeSchema,
  linkedIdentity,
  loginBody,
  loginResult,
  registerBody,
  socialIdentityStartBody,
  socialLinkBody,
  socialLoginBody,
  socialLoginResult,
  socialProvidersResult,
  socialStartResult,
  smsSendBody,
  smsSendResult,
  tokenResult,
  type LoginResult,
} from '@cpc/contracts';
import { caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import {
  SOCIAL_FLOW_COOKIE,
  SOCIAL_FLOW_COOKIE_PATH,
  browserKeyOf,
  newBrowserKey,
  type SocialLogin,
} from './social.ts';
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

export interface AuthRouteOptions {
  auth: AuthService;
  captcha: CaptchaProvider;
  refreshTtl: number;
  limits: AccountLimits;
  social: SocialLogin;
  /** The server's public origin (PUBLIC_URL, or the address it listens on): the social-login redirect is under it. */
  origin: () => string;
}

type App = Parameters<FastifyPluginAsyncZod<AuthRouteOptions>>[0];
/** Sets the refresh cookie of an issued session and answers its result. */
type SetRefresh = (
  req: FastifyRequest,
  reply: FastifyReply,
  issued: IssuedSession,
) => ReturnType<typeof ok<LoginResult>>;
/** The browser key a social flow about to start is bound to. */
type BrowserKey = (req: FastifyRequest, reply: FastifyReply) => string;

/** Captcha, SMS codes and registration (rate-limited per address). */
function accountRoutes(
  app: App,
  { auth, captcha, limits, social }: AuthRouteOptions,
  setRefreshCookie: SetRefresh,
): void {
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
    async (req, reply) => {
      const client = clientOf(req);
      // a social identity's ticket: checked before the account is made, linked to it after
      if (req.body.ticket) await social.checkTicket(req.body.ticket, client);
      const issued = await auth.register(req.body, client);
      if (req.body.ticket) await social.redeemTicket(req.body.ticket, issued.userId, issued.tenantId, client);
      return setRefreshCookie(req, reply, issued);
    },
  );
}

/** Signing in, refreshing the access token, signing out. */
function sessionRoutes(app: App, { auth }: AuthRouteOptions, setRefreshCookie: SetRefresh): void {
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
}

/** Social login: the providers, a flow's start and finish, linking an offered identity with a password. */
function socialLoginRoutes(
  app: App,
  { social }: AuthRouteOptions,
  setRefreshCookie: SetRefresh,
  browserKey: BrowserKey,
  redirectUri: () => string,
): void {
  app.get(
    '/socialLogin/providers',
    {
      config: { auth: false },
      schema: {
        tags: ['account'],
        summary: 'The social-login identity providers configured on this server (id and display name)',
        response: { 200: envelopeSchema(socialProvidersResult) },
      },
    },
    async () => ok(social.providers()),
  );

  app.post(
    '/socialLogin',
    {
      config: { auth: false },
      schema: {
        tags: ['account'],
        summary:
          'Social login: { provider } starts a flow (answers the authorization URL); the callback query { code, state, … } ' +
          'finishes it (answers the login result, or a ticket to link an unknown identity)',
        body: socialLoginBody,
        response: { 200: envelopeSchema(socialLoginResult) },
      },
    },
    async (req, reply) => {
      const client = clientOf(req);
      if (req.body.state === undefined && req.body.code === undefined && req.body.error === undefined) {
        return ok(await social.start(req.body.provider, redirectUri(), client, browserKey(req, reply)));
      }
      const outcome = await social.finish(req.body, client, browserKeyOf(req.cookies[SOCIAL_FLOW_COOKIE]));
      if (outcome.kind === 'session') return setRefreshCookie(req, reply, outcome.issued);
      if (outcome.kind === 'link') return ok({ link: outcome.link });
      return ok({ linked: outcome.linked });
    },
  );

  app.post(
    '/socialLogin/link',
    {
      config: { auth: false },
      schema: {
        tags: ['account'],
        summary: "Link a social identity (its ticket) to an existing account with the account's password, and sign in",
        body: socialLinkBody,
        response: { 200: envelopeSchema(loginResult) },
      },
    },
    async (req, reply) => setRefreshCookie(req, reply, await social.linkWithPassword(req.body, clientOf(req))),
  );
}

/** The signed-in user's linked identities: the list, linking another, unlinking one. */
function socialIdentityRoutes(
  app: App,
  { social }: AuthRouteOptions,
  browserKey: BrowserKey,
  redirectUri: () => string,
): void {
  app.get(
    '/socialLogin/identities',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['account'],
        summary: 'The social identities linked to the signed-in account',
        response: { 200: envelopeSchema(z.array(linkedIdentity)) },
      },
    },
    async (req) => ok(await social.identities(caller(req))),
  );

  app.post(
    '/socialLogin/identities',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['account'],
        summary: 'Link another identity: starts a flow whose callback links it to the signed-in account',
        body: socialIdentityStartBody,
        response: { 200: envelopeSchema(socialStartResult) },
      },
    },
    async (req, reply) =>
      ok(await social.start(req.body.provider, redirectUri(), clientOf(req), browserKey(req, reply), caller(req))),
  );

  app.delete(
    '/socialLogin/identities/:id',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['account'],
        summary: 'Remove a linked identity of the signed-in account',
        params: z.object({
          id: z.coerce
            .number()
            .int()
            .positive()
            .max(2 ** 53),
        }),
        response: { 200: empty },
      },
    },
    async (req) => {
      await social.unlink(caller(req), req.params.id, clientOf(req));
      return ok(null);
    },
  );
}

export const authRoutes: FastifyPluginAsyncZod<AuthRouteOptions> = async (app, options) => {
  const { refreshTtl, social, origin } = options;
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

  // from configuration only: a Host header names whatever the caller likes
  const redirectUri = () => `${origin()}/callback`;

  /**
   * Binds a flow about to start to this browser: its key from the flow cookie (kept, so flows started in two tabs
   * both finish), else a new one; the cookie is (re)set for the flow's lifetime, sent only to the social-login calls.
   */
  const browserKey = (req: FastifyRequest, reply: FastifyReply) => {
    const key = browserKeyOf(req.cookies[SOCIAL_FLOW_COOKIE]) ?? newBrowserKey();
    reply.setCookie(SOCIAL_FLOW_COOKIE, key, {
      httpOnly: true,
      // Lax: the provider's redirect back is a top-level navigation; the callback page's own call is same-site
      sameSite: 'lax',
      secure: req.protocol === 'https' || origin().startsWith('https:'),
      path: SOCIAL_FLOW_COOKIE_PATH,
      maxAge: social.flowTtlS,
    });
    return key;
  };

  accountRoutes(app, options, setRefreshCookie);
  sessionRoutes(app, options, setRefreshCookie);
  socialLoginRoutes(app, options, setRefreshCookie, browserKey, redirectUri);
  socialIdentityRoutes(app, options, browserKey, redirectUri);
};

/**
 * `GET /callback` (outside the API prefix): the identity provider's redirect lands on a real path (OAuth forbids
 * fragments); the console's callback route is `/#/callback`, so the query is carried there.
 */
export const socialCallbackRoute: FastifyPluginAsyncZod = async (app) => {
  app.get('/callback', { config: { auth: false }, schema: { hide: true } }, async (req, reply) => {
    const q = req.url.indexOf('?');
    return reply.redirect(`/#/callback${q >= 0 ? req.url.slice(q) : ''}`, 302);
  });
};
