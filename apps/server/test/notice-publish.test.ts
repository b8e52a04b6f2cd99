import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '@cpc/contracts';
import { sweepNotices } from '../src/modules/notice/index.ts';
import { ADMIN_PASSWORD, createHarness, registerCustomer, uploadImage, type Harness } from './harness.ts';
import { openEvents, subAccountWith, waitUntil } from './device-helpers.ts';

/** System announcements: staff write and publish, customers read by audience (issue 14). */
let h: Harness;
let staff: string;
let base: string;

interface Who {
  token: string;
  tenantId: number;
  userId: number;
}
async function who(kind: 'individual' | 'enterprise'): Promise<Who> {
  const c = await registerCustomer(h, kind);
  const u = await h.db
    .selectFrom('users')
    .select(['id', 'tenant_id'])
    .where('username', '=', c.username)
    .executeTakeFirstOrThrow();
  return { token: c.token, tenantId: u.tenant_id, userId: u.id };
}

beforeAll(async () => {
  h = await createHarness();
  staff = (await h.login('admin', ADMIN_PASSWORD)).token;
  base = await h.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => h.close());

const post = (url: string, payload: unknown, token = staff) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload: payload as object });
const get = (url: string, token = staff) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });

let seq = 0;
async function draft(fields: Record<string, unknown> = {}) {
  const res = await post('/notice/manage/create', {
    title: `Notice ${++seq}`,
    bodyHtml: `<p>body ${seq}</p>`,
    ...fields,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.body_.data as { id: number; title: string; state: string; bodyHtml: string };
}
async function published(fields: Record<string, unknown> = {}) {
  const d = await draft(fields);
  const res = await post('/notice/manage/publish', { id: d.id });
  expect(res.statusCode, res.body).toBe(200);
  return res.body_.data as { id: number; title: string; state: string; publishAt: string };
}
const titlesOf = async (token: string) =>
  ((await get('/notice/getList?pageSize=100', token)).body_.data.list as Array<{ title: string }>).map((n) => n.title);
const unread = async (token: string) => (await get('/notice/unreadCount', token)).body_.data.count as number;

describe('the life of an announcement', () => {
  it('goes draft → published → withdrawn; a draft and a withdrawn one are not shown; refused steps change nothing', async () => {
    const reader = await who('individual');
    const d = await draft({ title: 'Maintenance tonight' });
    expect(d.state).toBe('draft');
    expect(await titlesOf(reader.token)).not.toContain('Maintenance tonight');
    expect((await get(`/notice/detail?id=${d.id}`, reader.token)).statusCode).toBe(404);

    const withdrawDraft = await post('/notice/manage/withdraw', { id: d.id });
    expect(withdrawDraft.statusCode).toBe(409);
    expect(withdrawDraft.body_.msg).toBe('only a published announcement can be withdrawn');

    const pub = await post('/notice/manage/publish', { id: d.id });
    expect(pub.statusCode).toBe(200);
    expect(pub.body_.data.state).toBe('published');
    expect(Date.parse(pub.body_.data.publishAt)).toBeLessThanOrEqual(Date.now());
    expect(await titlesOf(reader.token)).toContain('Maintenance tonight');

    const again = await post('/notice/manage/publish', { id: d.id });
    expect(again.statusCode).toBe(409);
    expect(again.body_.msg).toBe('only a draft can be published');
    const del = await post('/notice/manage/delete', { id: d.id });
    expect(del.statusCode).toBe(409);
    expect(del.body_.msg).toContain('withdraw it first');

    const w = await post('/notice/manage/withdraw', { id: d.id });
    expect(w.statusCode).toBe(200);
    expect(w.body_.data).toMatchObject({ state: 'withdrawn', withdrawnAt: expect.any(String) });
    expect(await titlesOf(reader.token)).not.toContain('Maintenance tonight');
    expect((await get(`/notice/detail?id=${d.id}`, reader.token)).statusCode).toBe(404);

    const edit = await post('/notice/manage/update', { id: d.id, title: 'changed', bodyHtml: '<p>x</p>' });
    expect(edit.statusCode).toBe(409);
    const row = await h.db.selectFrom('notices').selectAll().where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ title: 'Maintenance tonight', state: 'withdrawn' });

    expect((await post('/notice/manage/delete', { id: d.id })).statusCode).toBe(200);
    expect((await get(`/notice/manage/detail?id=${d.id}`)).statusCode).toBe(404);

    const log = await h.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('resource', '=', 'notice')
      .where('resource_id', '=', String(d.id))
      .orderBy('id')
      .execute();
    expect(log.map((l) => l.action)).toEqual(['notice.create', 'notice.publish', 'notice.withdraw', 'notice.delete']);
    expect((log[1].details as any).changes.state).toEqual({ before: 'draft', after: 'published' });
  });

  it('edits a published one in place, and the staff list filters by state', async () => {
    const p = await published({ title: 'Typo here' });
    const res = await post('/notice/manage/update', { id: p.id, title: 'Typo fixed', bodyHtml: '<p>fixed</p>' });
    expect(res.statusCode).toBe(200);
    expect(res.body_.data).toMatchObject({ state: 'published', title: 'Typo fixed', publishAt: p.publishAt });
    const d = await draft({ title: 'Still a draft' });
    const drafts = await get('/notice/manage/list?state=draft&pageSize=100');
    const ids = drafts.body_.data.list.map((n: { id: number }) => n.id);
    expect(ids).toContain(d.id);
    expect(ids).not.toContain(p.id);
    const log = await h.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'notice.update')
      .where('resource_id', '=', String(p.id))
      .executeTakeFirstOrThrow();
    expect((log.details as any).changes.title).toEqual({ before: 'Typo here', after: 'Typo fixed' });
  });
});

describe('the audience', () => {
  it('shows each customer what it is in the audience of, and 404 for the rest; staff read all', async () => {
    const indivA = await who('individual');
    const indivB = await who('individual');
    const ent = await who('enterprise');
    const all = await published({ title: 'aud-all', audience: 'all' });
    const ind = await published({ title: 'aud-individual', audience: 'individual' });
    const en = await published({ title: 'aud-enterprise', audience: 'enterprise' });
    const chosen = await published({ title: 'aud-chosen', audience: 'tenants', tenantIds: [indivA.tenantId] });
    const aud = (titles: string[]) => titles.filter((t) => t.startsWith('aud-')).sort();

    expect(aud(await titlesOf(indivA.token))).toEqual(['aud-all', 'aud-chosen', 'aud-individual']);
    expect(aud(await titlesOf(indivB.token))).toEqual(['aud-all', 'aud-individual']);
    expect(aud(await titlesOf(ent.token))).toEqual(['aud-all', 'aud-enterprise']);
    expect(aud(await titlesOf(staff))).toEqual(['aud-all', 'aud-chosen', 'aud-enterprise', 'aud-individual']);

    expect((await get(`/notice/detail?id=${en.id}`, indivA.token)).statusCode).toBe(404);
    expect((await get(`/notice/detail?id=${chosen.id}`, indivB.token)).statusCode).toBe(404);
    expect((await get(`/notice/detail?id=${chosen.id}`, ent.token)).statusCode).toBe(404);
    expect((await get(`/notice/detail?id=${ind.id}`, ent.token)).statusCode).toBe(404);
    expect((await get(`/notice/detail?id=${chosen.id}`, indivA.token)).statusCode).toBe(200);
    expect((await get(`/notice/detail?id=${all.id}`, ent.token)).statusCode).toBe(200);
    expect((await get(`/notice/detail?id=${en.id}`, staff)).statusCode).toBe(200);

    // the staff view names the chosen tenants
    const m = await get(`/notice/manage/detail?id=${chosen.id}`);
    expect(m.body_.data.tenants).toEqual([expect.objectContaining({ id: indivA.tenantId, kind: 'individual' })]);
  });

  it('finds customer accounts to choose by their main account, never the platform', async () => {
    const c = await registerCustomer(h, 'enterprise', `findme_${Date.now() % 100000}`);
    const res = await get(`/notice/tenantOptions?keyword=${c.username}`);
    expect(res.statusCode).toBe(200);
    expect(res.body_.data).toEqual([expect.objectContaining({ name: c.username, kind: 'enterprise' })]);
    const platform = await get('/notice/tenantOptions?keyword=admin');
    expect(platform.body_.data.every((t: { kind: string }) => t.kind !== 'platform')).toBe(true);
  });
});

describe('schedule and end', () => {
  // the app's own periodic sweep runs too (every NOTICE_SWEEP_MS): an open console hears it from whichever sweep
  // ran, and a sweep after that one tells nobody again
  /** The `notice` events of `id` an open console hears after `from` (an index into its events). */
  const heard = (stream: { events: Array<{ type: string; data: unknown }> }, id: number, from: number) =>
    stream.events.slice(from).filter((e) => e.type === 'notice' && (e.data as { id: number }).id === id);

  it('keeps a scheduled one hidden until its time, then the sweep announces it once', async () => {
    const reader = await who('enterprise');
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const p = await published({ title: 'Scheduled one', publishAt: at });
    expect(p.state).toBe('published');
    expect(p.publishAt).toBe(at);
    expect(await titlesOf(reader.token)).not.toContain('Scheduled one');
    expect((await get(`/notice/detail?id=${p.id}`, reader.token)).statusCode).toBe(404);

    const told: number[] = [];
    const events = { publishAll: (e: { data: { id: number } }) => told.push(e.data.id) };
    await sweepNotices(h.db, events as never);
    expect(told).not.toContain(p.id);
    const stream = await openEvents(h, base, reader.token);
    try {
      await new Promise((r) => setTimeout(r, 300));
      const from = stream.events.length;
      // its time comes
      await h.db
        .updateTable('notices')
        .set({ published_at: new Date(Date.now() - 1000) })
        .where('id', '=', p.id)
        .execute();
      expect(await titlesOf(reader.token)).toContain('Scheduled one');
      await waitUntil('the sweep’s notice event', () => heard(stream, p.id, from).length > 0, 15_000);
      await sweepNotices(h.db, events as never);
      expect(told).not.toContain(p.id);
      expect(heard(stream, p.id, from)).toHaveLength(1);
    } finally {
      stream.close();
    }
  });

  it('stops showing one whose end passed, and tells consoles once', async () => {
    const reader = await who('individual');
    const p = await published({ title: 'Ends soon', endsAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect(await titlesOf(reader.token)).toContain('Ends soon');
    const before = await unread(reader.token);
    const stream = await openEvents(h, base, reader.token);
    try {
      await new Promise((r) => setTimeout(r, 300));
      const from = stream.events.length;
      await h.db
        .updateTable('notices')
        .set({ published_at: new Date(Date.now() - 7200_000), ends_at: new Date(Date.now() - 1000) })
        .where('id', '=', p.id)
        .execute();
      expect(await titlesOf(reader.token)).not.toContain('Ends soon');
      expect(await unread(reader.token)).toBe(before - 1);
      await waitUntil('the sweep’s notice event', () => heard(stream, p.id, from).length > 0, 15_000);
      const told: number[] = [];
      await sweepNotices(h.db, { publishAll: (e: { data: { id: number } }) => told.push(e.data.id) } as never);
      expect(told).not.toContain(p.id);
      expect(heard(stream, p.id, from)).toHaveLength(1);
    } finally {
      stream.close();
    }
  });

  it('refuses to publish one whose end has passed', async () => {
    const d = await draft({
      publishAt: new Date(Date.now() - 7200_000).toISOString(),
      endsAt: new Date(Date.now() - 3600_000).toISOString(),
    });
    const res = await post('/notice/manage/publish', { id: d.id });
    expect(res.statusCode).toBe(400);
    expect(res.body_.msg).toContain('endsAt');
    expect((await get(`/notice/manage/detail?id=${d.id}`)).body_.data.state).toBe('draft');
  });
});

describe('unread and read, per user', () => {
  it('orders pinned, then unread, then newest; reading one lowers only the reader’s count', async () => {
    const a = await who('enterprise');
    const b = await who('enterprise');
    // a tenant of its own so the other tests' notices do not count here
    const mine = (n: Record<string, unknown>) =>
      published({ audience: 'tenants', tenantIds: [a.tenantId, b.tenantId], ...n });
    const baseA = await unread(a.token);
    await mine({ title: 'u-old' });
    await mine({ title: 'u-pinned', pinned: true });
    const newer = await mine({ title: 'u-newer' });
    expect(await unread(a.token)).toBe(baseA + 3);

    const read = await get(`/notice/detail?id=${newer.id}`, a.token);
    expect(read.statusCode).toBe(200);
    expect(read.body_.data).toMatchObject({
      title: 'u-newer',
      read: true,
      notice: expect.stringMatching(/^<p>body \d+<\/p>$/),
    });
    expect(await unread(a.token)).toBe(baseA + 2);
    expect(await unread(b.token)).toBe(baseA + 3);
    // reading again changes nothing
    await get(`/notice/detail?id=${newer.id}`, a.token);
    expect(await unread(a.token)).toBe(baseA + 2);

    const list = (await get('/notice/getList?pageSize=100', a.token)).body_.data.list as Array<{
      title: string;
      read: boolean;
    }>;
    const mineOnly = list.filter((n) => n.title.startsWith('u-'));
    expect(mineOnly.map((n) => [n.title, n.read])).toEqual([
      ['u-pinned', false],
      ['u-old', false],
      ['u-newer', true],
    ]);
    expect(list[0].title).toBe('u-pinned');

    const unreadOnly = await get('/notice/getList?unread=true&pageSize=100', a.token);
    expect(unreadOnly.body_.data.list.map((n: { title: string }) => n.title)).not.toContain('u-newer');

    const all = await post('/notice/readAll', {}, a.token);
    expect(all.body_.data.updated).toBe(baseA + 2);
    expect(await unread(a.token)).toBe(0);
    expect(await unread(b.token)).toBe(baseA + 3);
    // the staff view counts the readers
    expect((await get(`/notice/manage/detail?id=${newer.id}`)).body_.data.reads).toBe(1);
  });
});

describe('permissions', () => {
  const staffCalls = [
    ['GET', '/notice/manage/list', undefined],
    ['GET', '/notice/manage/detail?id=1', undefined],
    ['GET', '/notice/tenantOptions', undefined],
    ['POST', '/notice/manage/create', { title: 't', bodyHtml: '<p>x</p>' }],
    ['POST', '/notice/manage/update', { id: 1, title: 't', bodyHtml: '<p>x</p>' }],
    ['POST', '/notice/manage/publish', { id: 1 }],
    ['POST', '/notice/manage/withdraw', { id: 1 }],
    ['POST', '/notice/manage/delete', { id: 1 }],
  ] as const;

  it.each(staffCalls)(
    '%s %s: 403 for a customer main account and for staff without notice:edit',
    async (method, url, payload) => {
      const c = await who('enterprise');
      const platform = await h.db
        .selectFrom('tenants')
        .select('id')
        .where('kind', '=', 'platform')
        .executeTakeFirstOrThrow();
      const clerk = await subAccountWith(h, platform.id, [PERMISSIONS.workOrderHandle]);
      for (const token of [c.token, clerk]) {
        const res = await h.call({ method, url: `/apiAdmin${url}`, token, payload: payload as object | undefined });
        expect(res.statusCode).toBe(403);
      }
    },
  );

  it.each([
    ['GET', '/notice/getList'],
    ['GET', '/notice/detail?id=1'],
    ['GET', '/notice/unreadCount'],
    ['POST', '/notice/readAll'],
    ...staffCalls.map(([m, u]) => [m, u] as const),
  ] as const)('%s %s needs a login', async (method, url) => {
    const res = await h.call({ method, url: `/apiAdmin${url}`, payload: method === 'POST' ? {} : undefined });
    expect(res.statusCode).toBe(401);
  });
});

describe('sanitising', () => {
  const PAYLOADS = [
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '<a href="javascript:alert(1)">a</a>',
    '<a href="java\tscript:alert(1)">b</a>',
    '<a href="JaVaScRiPt:alert(1)">c</a>',
    '<svg><script>alert(1)</script></svg>',
    '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
    '<iframe src="javascript:alert(1)"></iframe>',
    '<p onclick="alert(1)" style="background:url(javascript:alert(1))">p</p>',
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  ];
  const DANGER = /<script|onerror|onclick|javascript:|<iframe|<svg|<math|java\s*script/i;

  it('stores and answers the classic payloads without anything that runs', async () => {
    const body = `<p><strong>kept</strong></p>${PAYLOADS.join('')}`;
    const p = await published({ title: 'xss', bodyHtml: body });
    const row = await h.db.selectFrom('notices').select('body_html').where('id', '=', p.id).executeTakeFirstOrThrow();
    expect(row.body_html).toContain('<strong>kept</strong>');
    expect(row.body_html).not.toMatch(DANGER);
    const reader = await who('individual');
    const res = await get(`/notice/detail?id=${p.id}`, reader.token);
    expect(res.body_.data.notice).toContain('<strong>kept</strong>');
    expect(res.body_.data.notice).not.toMatch(DANGER);
    // a row written around the server is answered as stored: the browser's DOMPurify is the second guard
  });

  it('keeps the writer’s own images, signed on reading; refuses another account’s', async () => {
    const key = await uploadImage(h, staff, 'pic.png');
    const p = await published({ title: 'with image', bodyHtml: `<p>see</p><img src="x" data-object-key="${key}">` });
    const row = await h.db.selectFrom('notices').select('body_html').where('id', '=', p.id).executeTakeFirstOrThrow();
    expect(row.body_html).toContain(`data-object-key="${key}"`);
    expect(row.body_html).not.toContain('src=');
    const reader = await who('enterprise');
    const res = await get(`/notice/detail?id=${p.id}`, reader.token);
    expect(res.body_.data.notice).toMatch(/<img src="\/apiAdmin\/objects\/[^"]+sig=/);

    const c = await who('enterprise');
    const theirs = await uploadImage(h, c.token, 'theirs.png');
    const bad = await post('/notice/manage/create', {
      title: 'stolen',
      bodyHtml: `<p>x</p><img data-object-key="${theirs}">`,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body_.msg).toContain('bodyHtml');
    const cover = await post('/notice/manage/create', { title: 'cover', bodyHtml: '<p>x</p>', imageKey: theirs });
    expect(cover.statusCode).toBe(400);
    expect(cover.body_.msg).toContain('imageKey');
  });
});

describe('bad input', () => {
  const later = new Date(Date.now() + 3_600_000).toISOString();
  const sooner = new Date(Date.now() + 1_800_000).toISOString();
  it.each([
    ['an empty title', { title: '', bodyHtml: '<p>x</p>' }, 'title'],
    ['a body of only script', { title: 't', bodyHtml: '<script>x</script>' }, 'bodyHtml'],
    ['an unknown audience', { title: 't', bodyHtml: '<p>x</p>', audience: 'vip' }, 'audience'],
    ['chosen tenants without any', { title: 't', bodyHtml: '<p>x</p>', audience: 'tenants' }, 'tenantIds'],
    [
      'a tenant that does not exist',
      { title: 't', bodyHtml: '<p>x</p>', audience: 'tenants', tenantIds: [99999999] },
      'tenantIds.0',
    ],
    [
      'an end before the publish time',
      { title: 't', bodyHtml: '<p>x</p>', publishAt: later, endsAt: sooner },
      'endsAt',
    ],
    ['a publish time that is no date', { title: 't', bodyHtml: '<p>x</p>', publishAt: 'tomorrow' }, 'publishAt'],
    ['an unknown field', { title: 't', bodyHtml: '<p>x</p>', state: 'published' }, 'state'],
    ['a NUL in the title', { title: 'a\u0000b', bodyHtml: '<p>x</p>' }, 'title'],
  ])('answers 400 naming the field for %s, storing nothing', async (_, payload, field) => {
    const before = await h.db.selectFrom('notices').select(h.db.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const res = await post('/notice/manage/create', payload);
    expect(res.statusCode).toBe(400);
    expect(res.body_.msg).toContain(field);
    const after = await h.db.selectFrom('notices').select(h.db.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it.each([
    ['/notice/manage/list?state=live', 'state'],
    ['/notice/manage/detail?id=abc', 'id'],
    ['/notice/tenantOptions?ids=1,x', 'ids'],
    ['/notice/getList?pageSize=1000', 'pageSize'],
  ])('answers 400 for %s', async (url, field) => {
    const res = await get(url);
    expect(res.statusCode).toBe(400);
    expect(res.body_.msg).toContain(field);
  });

  it('answers 404 for a notice that does not exist', async () => {
    expect((await get('/notice/detail?id=99999999')).statusCode).toBe(404);
    expect((await post('/notice/manage/publish', { id: 99999999 })).statusCode).toBe(404);
  });
});

describe('live', () => {
  it('tells an open console when one is published', async () => {
    const c = await who('enterprise');
    const stream = await openEvents(h, base, c.token);
    try {
      const p = await published({ title: 'Live one', audience: 'enterprise' });
      await stream.waitFor('the notice event', (e) => e.type === 'notice' && e.data.id === p.id);
      await waitUntil('the count', async () => (await titlesOf(c.token)).includes('Live one'));
    } finally {
      stream.close();
    }
  });
});
