import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, createHarness, registerCustomer, type Harness } from './harness.ts';

let h: Harness;
let staff: string;
beforeAll(async () => {
  h = await createHarness();
  staff = (await h.login('admin', ADMIN_PASSWORD)).token;
});
afterAll(() => h.close());

/** The caller's user and tenant ids, as the server knows them. */
async function whoIs(username: string) {
  return h.db
    .selectFrom('users')
    .select(['id', 'tenant_id'])
    .where('username', '=', username)
    .executeTakeFirstOrThrow();
}

async function addMessages(username: string, titles: string[]): Promise<number[]> {
  const u = await whoIs(username);
  const rows = await h.db
    .insertInto('messages')
    .values(
      titles.map((title) => ({
        tenant_id: u.tenant_id,
        user_id: u.id,
        kind: 'work_order_replied',
        title,
        body: `${title} body`,
      })),
    )
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

const unread = async (token: string) =>
  (await h.call({ method: 'GET', url: '/apiAdmin/message/unreadCount', token })).body_.data.count as number;

describe('notices', () => {
  it('lists published notices, pinned first, and not the scheduled ones', async () => {
    await h.db
      .insertInto('notices')
      .values([
        { title: 'old', body_html: '<p>old</p>', published_at: new Date(Date.now() - 60_000) },
        { title: 'pinned', body_html: '<p>pinned</p>', pinned: true, published_at: new Date(Date.now() - 120_000) },
        { title: 'future', body_html: '<p>future</p>', published_at: new Date(Date.now() + 3_600_000) },
      ])
      .execute();
    const c = await registerCustomer(h);
    const res = await h.call({ method: 'GET', url: '/apiAdmin/notice/getList?pageSize=10', token: c.token });
    expect(res.statusCode).toBe(200);
    const titles = res.body_.data.list.map((n: { title: string }) => n.title);
    expect(titles).toEqual(['pinned', 'old']);
    expect(res.body_.data.total).toBe(2);
    expect(res.body_.data.list[0]).toMatchObject({ notice: '<p>pinned</p>', image: '', pinned: true });
  });
});

describe('messages and their read state', () => {
  it('lists only the caller’s messages, newest first, with the unread count', async () => {
    const a = await registerCustomer(h);
    const b = await registerCustomer(h);
    await addMessages(a.username, ['first', 'second']);
    await addMessages(b.username, ['not yours']);
    const res = await h.call({ method: 'GET', url: '/apiAdmin/message/getList', token: a.token });
    expect(res.statusCode).toBe(200);
    expect(res.body_.data.total).toBe(2);
    expect(res.body_.data.list.map((m: { title: string }) => m.title).sort()).toEqual(['first', 'second']);
    expect(res.body_.data.list.every((m: { readAt: string | null }) => m.readAt === null)).toBe(true);
    expect(await unread(a.token)).toBe(2);
    expect(await unread(b.token)).toBe(1);
  });

  it('marks one message read, once; the count follows', async () => {
    const a = await registerCustomer(h);
    const [m1] = await addMessages(a.username, ['one', 'two']);
    const first = await h.call({
      method: 'POST',
      url: '/apiAdmin/message/read',
      token: a.token,
      payload: { ids: [m1] },
    });
    expect(first.statusCode).toBe(200);
    expect(first.body_.data).toEqual({ updated: 1 });
    const again = await h.call({
      method: 'POST',
      url: '/apiAdmin/message/read',
      token: a.token,
      payload: { ids: [m1] },
    });
    expect(again.body_.data).toEqual({ updated: 0 });
    expect(await unread(a.token)).toBe(1);
    const list = await h.call({ method: 'GET', url: '/apiAdmin/message/getList', token: a.token });
    const read = list.body_.data.list.find((m: { id: number }) => m.id === m1);
    expect(read.readAt).toEqual(expect.any(String));
  });

  it('never touches another tenant’s or another user’s messages', async () => {
    const a = await registerCustomer(h);
    const b = await registerCustomer(h);
    const [theirs] = await addMessages(b.username, ['b only']);
    // a second user inside a's own tenant
    const owner = await whoIs(a.username);
    const colleague = await h.db
      .insertInto('users')
      .values({ tenant_id: owner.tenant_id, username: `${a.username}_sub`, password_hash: 'x', is_super: 2 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const [colleagues] = (
      await h.db
        .insertInto('messages')
        .values({ tenant_id: owner.tenant_id, user_id: colleague.id, kind: 'task_finished', title: 'colleague' })
        .returning('id')
        .execute()
    ).map((r) => r.id);

    const res = await h.call({
      method: 'POST',
      url: '/apiAdmin/message/read',
      token: a.token,
      payload: { ids: [theirs, colleagues] },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body_.data).toEqual({ updated: 0 });
    const all = await h.call({ method: 'POST', url: '/apiAdmin/message/readAll', token: a.token, payload: {} });
    expect(all.body_.data).toEqual({ updated: 0 });
    const untouched = await h.db
      .selectFrom('messages')
      .select('read_at')
      .where('id', 'in', [theirs, colleagues])
      .execute();
    expect(untouched.every((r) => r.read_at === null)).toBe(true);
    expect(await unread(b.token)).toBe(1);
  });

  it('marks all of the caller’s messages read', async () => {
    await addMessages('admin', ['a', 'b', 'c']);
    expect(await unread(staff)).toBe(3);
    const res = await h.call({ method: 'POST', url: '/apiAdmin/message/readAll', token: staff, payload: {} });
    expect(res.body_.data).toEqual({ updated: 3 });
    expect(await unread(staff)).toBe(0);
  });

  it.each([
    ['no ids', {}, 'ids'],
    ['an empty list', { ids: [] }, 'ids'],
    ['a non-number id', { ids: ['x'] }, 'ids.0'],
    ['a negative id', { ids: [-1] }, 'ids.0'],
    ['too many ids', { ids: Array.from({ length: 101 }, (_, i) => i + 1) }, 'ids'],
    ['an unknown field', { ids: [1], all: true }, 'all'],
  ])('answers 400 naming the field for %s', async (_, payload, field) => {
    const res = await h.call({ method: 'POST', url: '/apiAdmin/message/read', token: staff, payload });
    expect(res.statusCode).toBe(400);
    expect(res.body_.code).toBe(400);
    expect(res.body_.msg).toContain(field);
  });

  it.each([
    ['GET', '/apiAdmin/message/getList'],
    ['GET', '/apiAdmin/message/unreadCount'],
    ['POST', '/apiAdmin/message/read'],
    ['POST', '/apiAdmin/message/readAll'],
  ] as const)('%s %s needs a login', async (method, url) => {
    const res = await h.call({ method, url, payload: method === 'POST' ? { ids: [1] } : undefined });
    expect(res.statusCode).toBe(401);
  });
});
