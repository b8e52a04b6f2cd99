import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import * as oidc from 'openid-client';
import type { LinkedIdentity, SocialLinkBody, SocialLinkOffer, SocialLoginBody, SocialProvider } from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { Config, OidcProviderConfig } from '../../config.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import { newOpaqueToken, sha256 } from '../../lib/tokens.ts';
import type { ClientInfo } from '../../lib/sessions.ts';
import type { AuthService, IssuedSession } from './service.ts';
import { SocialRepository } from './repository/index.ts';

/** What finishing a flow answers: a session, an offer to link an unknown identity, or the link a signed-in user asked for. */
export type SocialOutcome =
  | { kind: 'session'; issued: IssuedSession }
  | { kind: 'link'; link: SocialLinkOffer }
  | { kind: 'linked'; linked: { provider: string; providerName: string } };

/** The identity an ID token vouches for. */
interface Vouched {
  provider: string;
  subject: string;
  email: string | null;
  name: string | null;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Parameters of the callback's query that are handed to the token check (everything but the provider). */
const CALLBACK_PARAMS = [
  'code',
  'state',
  'iss',
  'session_state',
  'error',
  'error_description',
  'error_uri',
  'scope',
  'authuser',
  'prompt',
] as const;

/** Text fit for the database: a lone UTF-16 surrogate (possible in any JSON) becomes U+FFFD. */
const clean = (v: string) =>
  v.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

const text = (v: unknown, max: number): string | null => (typeof v === 'string' && v ? clean(v.slice(0, max)) : null);

/**
 * The cookie that binds a flow to the browser that started it: 32 random bytes (base64url), HttpOnly, sent only
 * to the social-login calls. A flow's OIDC nonce is an HMAC of its state under this key (OpenID Connect Core
 * §15.5.2), so only the browser holding the key can finish it: a callback URL carried to another browser (login
 * CSRF: an attacker's own sign-in at the provider, handed to a victim) is refused before anything is exchanged.
 */
export const SOCIAL_FLOW_COOKIE = 'cpc_social';
export const SOCIAL_FLOW_COOKIE_PATH = '/apiAdmin/socialLogin';
const BROWSER_KEY = /^[\w-]{43}$/;

/** A well-formed browser key from the cookie, else undefined (absent, or anything else a client sent). */
export const browserKeyOf = (cookie: string | undefined) => (cookie && BROWSER_KEY.test(cookie) ? cookie : undefined);

/** A new browser key. */
export const newBrowserKey = () => randomBytes(32).toString('base64url');

/** The OIDC nonce of the flow `state` started by the browser holding `key`. */
const boundNonce = (key: string, state: string) =>
  createHmac('sha256', key).update(`social-flow-nonce:${state}`).digest('base64url');

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Social login (issue 12): OpenID Connect authorization code flow with PKCE, state and nonce through
 * openid-client, against identity providers configured by environment (OIDC_PROVIDERS). A started flow is a
 * `social_flows` row (single use, expiring); the ID token is checked by openid-client (issuer, audience,
 * nonce, expiry, signature); a linked identity signs in, an unknown one gets a link ticket.
 */
export class SocialLogin {
  /** Discovery documents by provider id, fetched at first use; a failed fetch is forgotten so the next use retries. */
  private discovered = new Map<string, Promise<oidc.Configuration>>();

  constructor(
    private db: Db,
    private config: Config,
    private auth: AuthService,
  ) {
    this.repo = new SocialRepository(db);
  }

  private repo: SocialRepository;

  /** Seconds a started flow stays usable (SOCIAL_FLOW_TTL_S): also the life of the browser's flow cookie. */
  get flowTtlS(): number {
    return this.config.SOCIAL_FLOW_TTL_S;
  }

  providers(): SocialProvider[] {
    return this.config.oidc.map((p) => ({ id: p.id, name: p.name }));
  }

  private providerName(id: string): string {
    return this.config.oidc.find((p) => p.id === id)?.name ?? id;
  }

  private async refuse(
    client: ClientInfo,
    error: AppError,
    reason: string,
    provider?: string,
    user?: { tenantId: number; userId: number },
  ): Promise<never> {
    await audit(this.db, {
      tenantId: user?.tenantId,
      userId: user?.userId,
      ip: client.ip,
      action: 'social.login',
      result: 'fail',
      details: { provider: provider ?? null, reason: clean(reason.slice(0, 300)) },
    });
    throw error;
  }

  private async provider(id: string | undefined, client: ClientInfo): Promise<OidcProviderConfig> {
    const p = this.config.oidc.find((x) => x.id === id);
    if (!p) {
      // an unknown id is said and logged as plain characters only (it may be anything a client sent)
      const shown = String(id ?? '')
        .slice(0, 30)
        .replace(/[^\w.-]/g, '?');
      await this.refuse(
        client,
        badRequest('provider', 'auth.socialDisabled', { provider: shown }),
        'provider not configured',
        shown,
      );
    }
    return p!;
  }

  private async configuration(p: OidcProviderConfig, client: ClientInfo): Promise<oidc.Configuration> {
    let found = this.discovered.get(p.id);
    if (!found) {
      const issuer = new URL(p.issuer);
      // plain http only for an IdP on this machine or outside production (a local test provider)
      const insecure =
        issuer.protocol === 'http:' && (LOOPBACK.has(issuer.hostname) || this.config.NODE_ENV !== 'production');
      found = oidc.discovery(
        issuer,
        p.clientId,
        p.clientSecret ? { client_secret: p.clientSecret } : undefined,
        p.clientSecret ? oidc.ClientSecretBasic(p.clientSecret) : oidc.None(),
        { execute: insecure ? [oidc.allowInsecureRequests] : [], timeout: 10 },
      );
      this.discovered.set(p.id, found);
      found.catch(() => this.discovered.delete(p.id));
    }
    try {
      return await found;
    } catch (e) {
      return this.refuse(
        client,
        new AppError(503, 'auth.socialUnreachable', { provider: p.name }),
        `discovery failed: ${(e as Error).message}`,
        p.id,
      );
    }
  }

  /**
   * Starts a flow for the browser holding `browserKey` (its SOCIAL_FLOW_COOKIE): stores state, nonce (bound to
   * the key) and PKCE verifier and answers the provider's authorization URL.
   */
  async start(
    providerId: string | undefined,
    redirectUri: string,
    client: ClientInfo,
    browserKey: string,
    linkUser?: AuthUser,
  ): Promise<{ url: string }> {
    const p = await this.provider(providerId, client);
    const cfg = await this.configuration(p, client);
    const state = oidc.randomState();
    const nonce = boundNonce(browserKey, state);
    const verifier = oidc.randomPKCECodeVerifier();
    const challenge = await oidc.calculatePKCECodeChallenge(verifier);
    // flows and link offers long over are swept as new flows start (their state is refused by expiry before that anyway)
    const longAgo = new Date(Date.now() - 86_400_000);
    await this.repo.sweepExpired(longAgo);
    await this.repo.insertFlow({
      stateHash: sha256(state),
      provider: p.id,
      nonce,
      codeVerifier: verifier,
      redirectUri,
      linkUserId: linkUser?.id ?? null,
      expiresAt: new Date(Date.now() + this.config.SOCIAL_FLOW_TTL_S * 1000),
    });
    const url = oidc.buildAuthorizationUrl(cfg, {
      redirect_uri: redirectUri,
      scope: p.scope,
      state,
      nonce,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    return { url: url.href };
  }

  /**
   * Finishes a flow from the callback's query, in the browser holding `browserKey`: checks state and that this
   * browser started the flow, exchanges the code with PKCE, verifies the ID token.
   */
  async finish(body: SocialLoginBody, client: ClientInfo, browserKey: string | undefined): Promise<SocialOutcome> {
    // a client that names the provider with the callback names one this server has
    if (body.provider !== undefined) await this.provider(body.provider, client);
    if (!body.state) {
      return this.refuse(client, badRequest('state', 'auth.socialStateInvalid'), 'no state');
    }
    const started = await this.repo.findOpenFlow(sha256(body.state));
    // another browser's callback is refused without spending the flow: whoever holds the URL cannot burn it either
    if (started && (!browserKey || !sameText(boundNonce(browserKey, body.state), started.nonce))) {
      const owner = started.link_user_id ? await this.userOf(started.link_user_id) : undefined;
      return this.refuse(
        client,
        new AppError(400, 'auth.socialOtherBrowser'),
        browserKey ? 'callback from another browser' : 'callback from another browser (no flow cookie)',
        started.provider,
        owner ? { tenantId: owner.tenant_id, userId: owner.id } : undefined,
      );
    }
    // the flow is claimed before anything else: a state (and with it its code) is good for one try
    const flow = await this.repo.claimFlow(sha256(body.state));
    if (!flow || flow.expires_at < new Date()) {
      return this.refuse(
        client,
        badRequest('state', 'auth.socialStateInvalid'),
        !flow ? 'unknown or used state' : 'expired flow',
        flow?.provider,
      );
    }
    if (body.provider !== undefined && body.provider !== flow.provider) {
      return this.refuse(client, badRequest('state', 'auth.socialStateInvalid'), 'provider mismatch', flow.provider);
    }
    const p = await this.provider(flow.provider, client);
    const actor = flow.link_user_id ? await this.userOf(flow.link_user_id) : undefined;
    const who = actor ? { tenantId: actor.tenant_id, userId: actor.id } : undefined;
    if (body.error) {
      return this.refuse(client, new AppError(401, 'auth.socialDenied'), `provider error: ${body.error}`, p.id, who);
    }
    const cfg = await this.configuration(p, client);
    const current = new URL(flow.redirect_uri);
    for (const k of CALLBACK_PARAMS) if (body[k] !== undefined) current.searchParams.set(k, body[k]);
    let vouched: Vouched;
    try {
      vouched = await this.vouch(cfg, current, flow, body.state, p);
    } catch (e) {
      return this.refuse(client, ...this.explain(e, p), p.id, who);
    }

    if (actor) {
      await this.link(vouched, actor.id, actor.tenant_id, client);
      return { kind: 'linked', linked: { provider: p.id, providerName: p.name } };
    }
    const known = await this.repo.findIdentityOwner(vouched.provider, vouched.subject);
    if (known) {
      return { kind: 'session', issued: await this.auth.signInAs(known.user_id, client, { provider: p.id }) };
    }
    const ticket = newOpaqueToken();
    await this.repo.insertLinkTicket(
      sha256(ticket),
      vouched,
      new Date(Date.now() + this.config.SOCIAL_FLOW_TTL_S * 1000),
    );
    return {
      kind: 'link',
      link: { ticket, provider: p.id, providerName: p.name, email: vouched.email, name: vouched.name },
    };
  }

  /** Exchanges the code with PKCE and checks the ID token: the identity it vouches for (throws otherwise). */
  private async vouch(
    cfg: oidc.Configuration,
    current: URL,
    flow: { code_verifier: string; nonce: string },
    state: string,
    p: OidcProviderConfig,
  ): Promise<Vouched> {
    const tokens = await oidc.authorizationCodeGrant(cfg, current, {
      pkceCodeVerifier: flow.code_verifier,
      expectedState: state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims?.sub) throw new Error('no ID token subject');
    // e-mail and name may be in the ID token or only at the UserInfo endpoint (for the same subject)
    let info: Record<string, unknown> = claims;
    if ((!claims.email || !claims.name) && cfg.serverMetadata().userinfo_endpoint) {
      info = await oidc
        .fetchUserInfo(cfg, tokens.access_token, claims.sub)
        .then((u) => ({ ...u, ...claims }) as Record<string, unknown>)
        .catch(() => claims);
    }
    return {
      provider: p.id,
      subject: clean(String(claims.sub).slice(0, 255)),
      email: text(info.email, 255),
      name: text(info.name, 100) ?? text(info.preferred_username, 100) ?? text(info.nickname, 100),
    };
  }

  /** The refusal a failed code exchange or token check answers, and the reason the system log keeps. */
  private explain(e: unknown, p: OidcProviderConfig): [AppError, string] {
    const err = e as { message?: string; code?: string; error?: string; cause?: unknown };
    // the claim a comparison failed on (nonce, iss, aud…) is named; values are not logged
    const said: string[] = [];
    for (let c: unknown = e, depth = 0; c && typeof c === 'object' && depth < 4; depth++) {
      const { message, claim, cause } = c as { message?: unknown; claim?: unknown; cause?: unknown };
      if (typeof message === 'string') said.push(message);
      if (typeof claim === 'string') said.push(`claim ${claim}`);
      c = cause;
    }
    const why = `${err.code ?? 'error'}: ${err.error ?? ''} ${said.join('; ')}`;
    if (e instanceof oidc.ResponseBodyError && err.error === 'invalid_grant') {
      return [new AppError(401, 'auth.socialCodeRejected'), why];
    }
    if (e instanceof oidc.AuthorizationResponseError) return [new AppError(401, 'auth.socialDenied'), why];
    if (e instanceof TypeError && /fetch/i.test(String(err.message))) {
      return [new AppError(503, 'auth.socialUnreachable', { provider: p.name }), why];
    }
    if (e instanceof oidc.ResponseBodyError) return [new AppError(401, 'auth.socialCodeRejected'), why];
    return [new AppError(401, 'auth.socialTokenRejected'), why];
  }

  private userOf(userId: number) {
    return this.repo.findUser(userId);
  }

  /** Links the identity to the user; an identity already linked to someone else is refused (409). */
  private async link(v: Vouched, userId: number, tenantId: number, client: ClientInfo): Promise<void> {
    const linkId = await this.repo.insertIdentity(userId, tenantId, v);
    if (linkId === undefined) {
      const owner = await this.repo.findIdentityOwner(v.provider, v.subject);
      if (owner?.user_id === userId) return;
      await this.refuse(
        client,
        new AppError(400, 'auth.socialAlreadyLinked', { provider: this.providerName(v.provider) }),
        'identity linked to another account',
        v.provider,
        { tenantId, userId },
      );
    }
    await audit(this.db, {
      tenantId,
      userId,
      ip: client.ip,
      action: 'social.link',
      resource: 'user_identity',
      resourceId: linkId!,
      result: 'ok',
      changes: changedFields({}, { provider: v.provider, subject: v.subject, email: v.email, name: v.name }),
    });
  }

  /** The identity a link ticket names, while the ticket is unused and fresh (nothing is consumed). */
  async checkTicket(ticket: string, client: ClientInfo): Promise<void> {
    if (!(await this.repo.ticketOpen(sha256(ticket))))
      await this.refuse(client, badRequest('ticket', 'auth.socialTicketInvalid'), 'unknown link ticket');
  }

  /** Consumes the ticket and links its identity to the user. */
  async redeemTicket(ticket: string, userId: number, tenantId: number, client: ClientInfo): Promise<void> {
    const row = await this.repo.redeemTicket(sha256(ticket));
    if (!row) {
      return this.refuse(client, badRequest('ticket', 'auth.socialTicketInvalid'), 'used link ticket', undefined, {
        tenantId,
        userId,
      });
    }
    await this.link(row, userId, tenantId, client);
  }

  /** Links the ticket's identity to an existing account after its password (the login's checks and throttle). */
  async linkWithPassword(body: SocialLinkBody, client: ClientInfo): Promise<IssuedSession> {
    await this.checkTicket(body.ticket, client);
    const issued = await this.auth.login(
      { username: body.username, password: body.password, captchaId: body.captchaId, captcha: body.captcha },
      client,
    );
    await this.redeemTicket(body.ticket, issued.userId, issued.tenantId, client);
    return issued;
  }

  async identities(user: AuthUser): Promise<LinkedIdentity[]> {
    const rows = await this.repo.listIdentities(user.tenantId, user.id);
    return rows.map((r) => ({
      id: r.id,
      provider: r.provider,
      providerName: this.providerName(r.provider),
      subject: r.subject,
      email: r.email,
      name: r.name,
      createdAt: r.created_at.toISOString(),
    }));
  }

  async unlink(user: AuthUser, id: number, client: ClientInfo): Promise<void> {
    const row = await this.repo.deleteIdentity(user.tenantId, user.id, id);
    if (!row) throw notFound('linked account');
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip: client.ip,
      action: 'social.unlink',
      resource: 'user_identity',
      resourceId: id,
      result: 'ok',
      changes: changedFields({ provider: row.provider, subject: row.subject, email: row.email, name: row.name }, {}),
    });
  }
}
