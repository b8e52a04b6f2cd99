import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * A real OpenID provider (oidc-provider) on an ephemeral loopback port, for social-login tests: one confidential
 * client with PKCE required, consent granted automatically, and a sign-in page that signs in whichever account
 * the test named (`idp.account`) — in a browser it is a one-button form, for `authorize` no page at all.
 */
export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The account the next sign-in at this provider is for (its `sub`). */
  account: string;
  /** Runs an authorization URL through the provider as a browser would; the redirect back (with code, state, iss). */
  authorize(url: string): Promise<URL>;
  close(): Promise<void>;
}

/** The provider's store for this test run: a map per model, with expiry (what its quick-start store does, said). */
class MapAdapter {
  private static stores = new Map<string, Map<string, { payload: Record<string, unknown>; exp: number }>>();
  private store: Map<string, { payload: Record<string, unknown>; exp: number }>;
  constructor(name: string) {
    this.store = MapAdapter.stores.get(name) ?? new Map();
    MapAdapter.stores.set(name, this.store);
  }
  async upsert(id: string, payload: Record<string, unknown>, expiresIn: number) {
    this.store.set(id, { payload, exp: expiresIn ? Date.now() + expiresIn * 1000 : Infinity });
  }
  async find(id: string) {
    const e = this.store.get(id);
    if (!e || e.exp < Date.now()) return undefined;
    return e.payload;
  }
  async findByUserCode(userCode: string) {
    return [...this.store.values()].find((e) => e.payload.userCode === userCode)?.payload;
  }
  async findByUid(uid: string) {
    return [...this.store.values()].find((e) => e.payload.uid === uid)?.payload;
  }
  async consume(id: string) {
    const e = this.store.get(id);
    if (e) e.payload.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id: string) {
    this.store.delete(id);
  }
  async revokeByGrantId(grantId: string) {
    for (const [id, e] of this.store) if (e.payload.grantId === grantId) this.store.delete(id);
  }
}

export async function startIdp(redirectUris: string[], clientId = 'cpc-console'): Promise<TestIdp> {
  const clientSecret = 'test-client-secret-0123456789abcdef';
  const oidc: { provider?: Provider } = {};
  const idp: TestIdp = {
    issuer: '',
    clientId,
    clientSecret,
    account: 'alice',
    authorize: (url) => drive(url, redirectUris),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    const m = /^\/interaction\/([\w-]+)(\/login)?/.exec(req.url ?? '');
    if (!m) {
      void oidc.provider!.callback()(req, res);
      return;
    }
    void (async () => {
      try {
        if (req.method === 'GET' && !m[2] && req.headers['x-test-agent'] !== 'auto') {
          // a browser sees a page with one button that signs in the test's account
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end(
            `<!doctype html><title>Test IdP</title><h1>Test IdP</h1><form method="post" action="/interaction/${m[1]}/login">` +
              `<p>Signing in as <b id="account">${idp.account}</b></p><button type="submit" id="idp-login">Sign in</button></form>`,
          );
          return;
        }
        await oidc.provider!.interactionFinished(
          req,
          res,
          { login: { accountId: idp.account } },
          {
            mergeWithLastSubmission: false,
          },
        );
      } catch (e) {
        res.writeHead(500);
        res.end(String(e));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  idp.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  oidc.provider = new Provider(idp.issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { methods: ['S256'], required: () => true },
    features: { devInteractions: { enabled: false } },
    cookies: { keys: ['test-cookie-key-0123456789'] },
    // its own signing key and store: not the quick-start ones it warns about
    jwks: {
      keys: [
        {
          ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
          use: 'sig',
          kid: 'test',
        },
      ],
    },
    adapter: MapAdapter,
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: async (_ctx, sub) => ({
      accountId: sub,
      claims: async () => ({ sub, email: `${sub}@idp.test`, email_verified: true, name: `IdP ${sub}` }),
    }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // consent is granted without a screen: the test client asks for what it may have
    loadExistingGrant: async (ctx) => {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session!.accountId!,
      });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  return idp;
}

/** Follows the provider's redirects with a cookie jar until one leaves for a redirect URI. */
async function drive(start: string, redirectUris: string[]): Promise<URL> {
  const jar = new Map<string, string>();
  let url = new URL(start);
  for (let hop = 0; hop < 10; hop++) {
    if (redirectUris.some((r) => url.href.startsWith(r))) return url;
    const res = await fetch(url, {
      redirect: 'manual',
      headers: {
        'x-test-agent': 'auto',
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
    const location = res.headers.get('location');
    if (!location) throw new Error(`the provider stopped at ${url.href}: ${res.status} ${await res.text()}`);
    url = new URL(location, url);
  }
  throw new Error('too many redirects at the provider');
}
