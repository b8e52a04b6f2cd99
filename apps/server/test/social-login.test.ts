import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, nextMobile, registerCustomer, type Harness } from './harness.ts';
import { startIdp, type TestIdp } from './oidc-idp.ts';
import { sha256 } from '../src/lib/tokens.ts';

const PUBLIC_URL = 'http://console.test';
const REDIRECT = `${PUBLIC_URL}/callback`;

let h: Harness;
let idp: TestIdp;
let rogue: TestIdp;
beforeAll(async () => {
  idp = await startIdp([REDIRECT]);
  // a second, real provider the server is not configured for
  rogue = await startIdp([REDIRECT]);
  h = await createHarness({
    PUBLIC_URL,
    OIDC_PROVIDERS: 'corp,dead',
    OIDC_CORP_ISSUER: idp.issuer,
    OIDC_CORP_CLIENT_ID: idp.clientId,
    OIDC_CORP_CLIENT_SECRET: idp.clientSecret,
    OIDC_CORP_NAME: 'Corp SSO',
    // nothing listens on port 9 of this machine: discovery fails
    OIDC_DEAD_ISSUER: 'http://127.0.0.1:9',
    OIDC_DEAD_CLIENT_ID: 'x',
  });
});
afterAll(async () => {
  await h.close();
  await idp.close();
  await rogue.close();
});

/** The social-flow cookie this test's browser holds (`cpc_social=…`), as the last start set it. */
let jar = '';
const flowCookie = (res: { headers: Record<string, unknown> }) =>
  /cpc_social=[^;,]*/.exec(String(res.headers['set-cookie'] ?? ''))?.[0];

/** A call from this test's browser: it sends the flow cookie back and keeps the one it is given. */
const post = async (url: string, payload: Record<string, unknown>, token?: string, cookie = jar) => {
  const res = await h.call({
    method: 'POST',
    url: `/apiAdmin${url}`,
    payload,
    token,
    headers: cookie ? { cookie } : {},
  });
  if (cookie === jar) jar = flowCookie(res) ?? jar;
  return res;
};
const get = (url: string, token?: string) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });

/** Starts a flow for the provider; the authorization URL. */
async function start(provider = 'corp'): Promise<URL> {
  const res = await post('/socialLogin', { provider });
  expect(res.statusCode, res.body).toBe(200);
  return new URL(res.body_.data.url);
}

/** The callback query as the web route posts it. */
const queryOf = (u: URL) => Object.fromEntries(u.searchParams);

/** A whole flow at the provider as `account`: the callback's query. */
async function signInAtIdp(account: string, provider = 'corp'): Promise<Record<string, string>> {
  idp.account = account;
  return queryOf(await idp.authorize((await start(provider)).href));
}

const failures = () =>
  h.db
    .selectFrom('audit_log')
    .select(['details'])
    .where('action', '=', 'social.login')
    .where('result', '=', 'fail')
    .execute();

describe('social login providers', () => {
  it('lists the configured providers by id and display name, without secrets, to anyone', async () => {
    const res = await get('/socialLogin/providers');
    expect(res.statusCode).toBe(200);
    expect(res.body_.data).toEqual([
      { id: 'corp', name: 'Corp SSO' },
      { id: 'dead', name: 'dead' },
    ]);
    expect(res.body).not.toContain(idp.clientSecret);
  });

  it('starts a flow with PKCE (S256), state and nonce, redirecting to <PUBLIC_URL>/callback', async () => {
    const url = await start();
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.get('redirect_uri')).toBe(REDIRECT);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(url.searchParams.get('state')).toBeTruthy();
    expect(url.searchParams.get('nonce')).toBeTruthy();
    expect(url.searchParams.get('scope')).toBe('openid profile email');
  });

  it('refuses an unconfigured provider and an unreachable one clearly', async () => {
    const nope = await post('/socialLogin', { provider: 'nope' });
    expect(nope.statusCode).toBe(400);
    expect(nope.body_.msg).toContain('"nope" is not enabled');
    expect(nope.body_.data.fields[0].field).toBe('provider');
    const dead = await post('/socialLogin', { provider: 'dead' });
    expect(dead.statusCode).toBe(503);
    expect(dead.body_.msg).toBe('the identity provider "dead" cannot be reached, try again later');
  });

  it('redirects GET /callback to the console route, keeping the query', async () => {
    const res = await h.call({ method: 'GET', url: '/callback?code=abc&state=xyz' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/#/callback?code=abc&state=xyz');
  });
});

describe('first login, link, next login', () => {
  it('offers a new identity a link; the password links it; the next login signs in directly', async () => {
    const c = await registerCustomer(h);
    const first = await post('/socialLogin', await signInAtIdp('alice'));
    expect(first.statusCode, first.body).toBe(200);
    expect(first.body_.data.link).toMatchObject({
      provider: 'corp',
      providerName: 'Corp SSO',
      email: 'alice@idp.test',
      name: 'IdP alice',
    });
    expect(first.body_.data.token).toBeUndefined();
    const ticket = first.body_.data.link.ticket as string;

    const wrong = await post('/socialLogin/link', { ticket, username: c.username, password: 'Wrong12345' });
    expect(wrong.statusCode).toBe(401);
    const linked = await post('/socialLogin/link', { ticket, username: c.username, password: c.password });
    expect(linked.statusCode, linked.body).toBe(200);
    expect(linked.body_.data).toMatchObject({ username: c.username });
    expect(String(linked.headers['set-cookie'])).toContain('cpc_refresh=');
    const again = await post('/socialLogin/link', { ticket, username: c.username, password: c.password });
    expect(again.statusCode).toBe(400);
    expect(again.body_.data.fields[0].field).toBe('ticket');

    const list = await get('/socialLogin/identities', linked.body_.data.token);
    expect(list.body_.data).toEqual([
      expect.objectContaining({
        provider: 'corp',
        providerName: 'Corp SSO',
        subject: 'alice',
        email: 'alice@idp.test',
      }),
    ]);

    const next = await post('/socialLogin', await signInAtIdp('alice'));
    expect(next.statusCode).toBe(200);
    expect(next.body_.data).toMatchObject({ username: c.username });
    expect(next.body_.data.token).toBeTruthy();
    expect(String(next.headers['set-cookie'])).toContain('cpc_refresh=');
    const profile = await get('/user/v1/user/profile', next.body_.data.token);
    expect(profile.statusCode).toBe(200);

    const log = await h.db
      .selectFrom('audit_log')
      .select(['action', 'result', 'details'])
      .where('action', '=', 'social.link')
      .execute();
    expect(log).toHaveLength(1);
    expect(JSON.stringify(log[0].details)).toContain('alice@idp.test');
  });

  it('registers a new account with the ticket and links the identity to it', async () => {
    const offer = await post('/socialLogin', await signInAtIdp('bob'));
    const ticket = offer.body_.data.link.ticket as string;
    const mobile = nextMobile();
    await post('/sms/send', { mobile, purpose: 'register' });
    const password = 'Passw0rd99';
    const username = `bob_${Date.now() % 100000}`;
    const reg = await post('/register', {
      type: 'individual',
      username,
      mobile,
      smsCode: h.lastSmsCode(mobile),
      password,
      confirmPassword: password,
      ticket,
    });
    expect(reg.statusCode, reg.body).toBe(200);
    const next = await post('/socialLogin', await signInAtIdp('bob'));
    expect(next.body_.data).toMatchObject({ username });
  });

  it('links another identity while signed in: the callback links instead of signing in', async () => {
    const c = await registerCustomer(h);
    const started = await post('/socialLogin/identities', { provider: 'corp' }, c.token);
    expect(started.statusCode).toBe(200);
    idp.account = 'carol';
    const back = await idp.authorize(started.body_.data.url);
    const res = await post('/socialLogin', queryOf(back));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body_.data).toEqual({ linked: { provider: 'corp', providerName: 'Corp SSO' } });
    const list = await get('/socialLogin/identities', c.token);
    expect(list.body_.data.map((i: { subject: string }) => i.subject)).toEqual(['carol']);

    // the same identity cannot be linked to a second account
    const d = await registerCustomer(h);
    const again = await post('/socialLogin/identities', { provider: 'corp' }, d.token);
    const back2 = await idp.authorize(again.body_.data.url);
    const refused = await post('/socialLogin', queryOf(back2));
    expect(refused.statusCode).toBe(400);
    expect(refused.body_.msg).toBe('this Corp SSO identity is already linked to an account');
  });
});

describe('refusals', () => {
  it('refuses a forged state, and a state used once already (a replayed callback)', async () => {
    const before = (await failures()).length;
    const q = await signInAtIdp('dave');
    const forged = await post('/socialLogin', { ...q, state: 'forged-state-value' });
    expect(forged.statusCode).toBe(400);
    expect(forged.body_.msg).toContain(
      'this social sign-in is unknown, expired or already used, please start it again',
    );
    expect(forged.body_.data.fields[0].field).toBe('state');

    expect((await post('/socialLogin', q)).statusCode).toBe(200);
    const replay = await post('/socialLogin', q);
    expect(replay.statusCode).toBe(400);
    expect(replay.body_.msg).toContain('already used');
    expect((await failures()).length).toBe(before + 2);
  });

  it('refuses a replayed code under a fresh state: the provider rejects it', async () => {
    const q = await signInAtIdp('erin');
    expect((await post('/socialLogin', q)).statusCode).toBe(200);
    const fresh = await start();
    const res = await post('/socialLogin', { ...q, state: fresh.searchParams.get('state')! });
    expect(res.statusCode).toBe(401);
    expect(res.body_.msg).toBe(
      'the identity provider refused the authorization code (already used or expired), please start again',
    );
  });

  it('refuses an ID token whose nonce is not the flow’s', async () => {
    // two flows of this browser: the first's code (and ID token nonce) comes back under the second's state, with
    // the first's PKCE verifier given to the second, so that only the ID token's nonce is wrong
    const q = await signInAtIdp('frank');
    const other = (await start()).searchParams.get('state')!;
    const first = await h.db
      .selectFrom('social_flows')
      .select('code_verifier')
      .where('state_hash', '=', sha256(q.state))
      .executeTakeFirstOrThrow();
    await h.db
      .updateTable('social_flows')
      .set({ code_verifier: first.code_verifier })
      .where('state_hash', '=', sha256(other))
      .execute();
    const res = await post('/socialLogin', { ...q, state: other });
    expect(res.statusCode).toBe(401);
    expect(res.body_.msg).toContain('failed verification');
    const reasons = (await failures()).map((f) => JSON.stringify(f.details));
    expect(reasons.some((r) => r.includes('claim nonce'))).toBe(true);
  });

  it('refuses an answer from an issuer that is not configured (a real second provider)', async () => {
    const url = await start();
    // the same authorization request, sent to the rogue provider: its code and its iss come back
    const forgedAt = new URL(url.pathname + url.search, rogue.issuer);
    forgedAt.searchParams.set('client_id', rogue.clientId);
    rogue.account = 'alice';
    const back = queryOf(await rogue.authorize(forgedAt.href));
    expect(back.iss).toBe(rogue.issuer);
    const res = await post('/socialLogin', back);
    expect(res.statusCode).toBe(401);
    expect(res.body_.msg).toContain('failed verification');
  });

  it('refuses an expired flow', async () => {
    const q = await signInAtIdp('gina');
    await h.db
      .updateTable('social_flows')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('state_hash', '=', sha256(q.state))
      .execute();
    const res = await post('/socialLogin', q);
    expect(res.statusCode).toBe(400);
    expect(res.body_.data.fields[0].field).toBe('state');
  });

  it('refuses a cancelled sign-in and junk without a 500', async () => {
    const url = await start();
    const denied = await post('/socialLogin', {
      state: url.searchParams.get('state')!,
      error: 'access_denied',
      error_description: 'user cancelled',
    });
    expect(denied.statusCode).toBe(401);
    expect(denied.body_.msg).toBe('sign-in was cancelled or refused at the identity provider');
    const another = await start();
    const hostile = await post('/socialLogin', { state: another.searchParams.get('state')!, error: '\ud800x' });
    expect(hostile.statusCode).toBe(401);
    for (const payload of [{}, { code: 'x' }, { state: 'x'.repeat(5000) }, { provider: 5 }, { other: 1 }]) {
      const res = await post('/socialLogin', payload as Record<string, unknown>);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
    }
    const badLink = await post('/socialLogin/link', { ticket: 'nope', username: 'admin', password: 'whatever1' });
    expect(badLink.statusCode).toBe(400);
  });
});

describe('a callback presented in a browser that did not start the flow (login CSRF)', () => {
  const count = async (table: 'social_link_tickets' | 'user_identities') =>
    Number(
      (
        await h.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('binds the start to the browser with an HttpOnly, SameSite=Lax cookie on the social-login path', async () => {
    const res = await h.call({ method: 'POST', url: '/apiAdmin/socialLogin', payload: { provider: 'corp' } });
    expect(res.statusCode).toBe(200);
    const set = String(res.headers['set-cookie']);
    expect(set).toMatch(/^cpc_social=[\w-]{43};/);
    expect(set).toContain('HttpOnly');
    expect(set).toContain('SameSite=Lax');
    expect(set).toContain('Path=/apiAdmin/socialLogin');
    // PUBLIC_URL is plain http here: a Secure cookie would never come back
    expect(set).not.toContain('Secure');
  });

  it("refuses the attacker's callback in the victim's browser: nothing offered, linked or signed in", async () => {
    const victim = await registerCustomer(h);
    // the attacker starts in their own browser and signs in at the provider as themself
    const started = await h.call({ method: 'POST', url: '/apiAdmin/socialLogin', payload: { provider: 'corp' } });
    const attacker = flowCookie(started)!;
    idp.account = 'mallory';
    const q = queryOf(await idp.authorize(started.body_.data.url));
    const tickets = await count('social_link_tickets');
    const identities = await count('user_identities');
    const otherBrowser = async () =>
      (await failures()).filter((f) => JSON.stringify(f.details).includes('callback from another browser')).length;
    const refusedBefore = await otherBrowser();

    // the victim opens the link: their browser has no flow cookie, or (after a start of their own) another one
    const bare = await post('/socialLogin', q, undefined, '');
    await start();
    const other = await post('/socialLogin', q, victim.token);
    const zh = await h.call({
      method: 'POST',
      url: '/apiAdmin/socialLogin',
      payload: q,
      headers: { cookie: jar, 'accept-language': 'zh-CN' },
    });
    for (const res of [bare, other, zh]) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.body_.data).toBeNull();
      expect(String(res.headers['set-cookie'] ?? '')).not.toContain('cpc_refresh=');
    }
    expect(bare.body_.msg).toBe('this sign-in was not started in this browser, please start it again here');
    expect(zh.body_.msg).toBe('此次第三方登录不是在本浏览器中发起的，请在本浏览器重新发起');
    expect(await count('social_link_tickets')).toBe(tickets);
    expect(await count('user_identities')).toBe(identities);
    expect((await get('/socialLogin/identities', victim.token)).body_.data).toEqual([]);
    expect(await otherBrowser()).toBe(refusedBefore + 3);

    // the flow was not the victim's to spend: in the browser that started it, it still finishes (as the attacker)
    const own = await post('/socialLogin', q, undefined, attacker);
    expect(own.statusCode, own.body).toBe(200);
    expect(own.body_.data.link).toMatchObject({ provider: 'corp', name: 'IdP mallory' });
  });

  it("refuses a signed-in user's link flow finished in another browser: the identity is not linked", async () => {
    const c = await registerCustomer(h);
    const started = await post('/socialLogin/identities', { provider: 'corp' }, c.token);
    idp.account = 'oscar';
    const q = queryOf(await idp.authorize(started.body_.data.url));
    const elsewhere = await post('/socialLogin', q, undefined, 'cpc_social=' + 'A'.repeat(43));
    expect(elsewhere.statusCode).toBe(400);
    expect((await get('/socialLogin/identities', c.token)).body_.data).toEqual([]);
    const here = await post('/socialLogin', q);
    expect(here.body_.data).toEqual({ linked: { provider: 'corp', providerName: 'Corp SSO' } });
  });

  it('finishes two flows started in two tabs of the same browser', async () => {
    const one = await start();
    const two = await start();
    idp.account = 'tabby';
    const q1 = queryOf(await idp.authorize(one.href));
    const q2 = queryOf(await idp.authorize(two.href));
    expect((await post('/socialLogin', q2)).statusCode).toBe(200);
    expect((await post('/socialLogin', q1)).statusCode).toBe(200);
  });
});

describe('linked identities in the personal centre', () => {
  it('lists only the caller’s own links; another user cannot remove them; the owner can', async () => {
    const a = await registerCustomer(h);
    const b = await registerCustomer(h);
    const started = await post('/socialLogin/identities', { provider: 'corp' }, a.token);
    idp.account = 'hank';
    await post('/socialLogin', queryOf(await idp.authorize(started.body_.data.url)));
    const mine = await get('/socialLogin/identities', a.token);
    expect(mine.body_.data).toHaveLength(1);
    const id = mine.body_.data[0].id as number;
    expect((await get('/socialLogin/identities', b.token)).body_.data).toEqual([]);

    const theirs = await h.call({ method: 'DELETE', url: `/apiAdmin/socialLogin/identities/${id}`, token: b.token });
    expect(theirs.statusCode).toBe(404);
    expect((await get('/socialLogin/identities', a.token)).body_.data).toHaveLength(1);
    const admin = await h.login('admin', h.adminPassword);
    const staff = await h.call({ method: 'DELETE', url: `/apiAdmin/socialLogin/identities/${id}`, token: admin.token });
    expect(staff.statusCode).toBe(404);

    const removed = await h.call({ method: 'DELETE', url: `/apiAdmin/socialLogin/identities/${id}`, token: a.token });
    expect(removed.statusCode).toBe(200);
    expect((await get('/socialLogin/identities', a.token)).body_.data).toEqual([]);
    const log = await h.db
      .selectFrom('audit_log')
      .select(['details'])
      .where('action', '=', 'social.unlink')
      .where('resource_id', '=', String(id))
      .executeTakeFirst();
    expect(JSON.stringify(log?.details)).toContain('hank');

    // the identity is unknown again: its next login is offered a link
    const next = await post('/socialLogin', await signInAtIdp('hank'));
    expect(next.body_.data.link).toBeTruthy();
    expect((await get('/socialLogin/identities')).statusCode).toBe(401);
  });
});
