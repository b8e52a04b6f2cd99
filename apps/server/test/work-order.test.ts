import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS, type DataScope, type WorkOrderState } from '@cpc/contracts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { ADMIN_PASSWORD, PNG_1x1, createHarness, multipart, uploadImage, type Harness } from './harness.ts';
import { customer, devicesOf, openEvents, type Customer } from './device-helpers.ts';
import { hashPassword } from '../src/lib/password.ts';
import { closeResolvedOrders } from '../src/modules/work-order/index.ts';

let h: Harness;
let A: Customer;
let B: Customer;
let admin: string;
let adminId: number;
let platformId: number;
beforeAll(async () => {
  h = await createHarness();
  [A, B] = [await customer(h), await customer(h)];
  admin = (await h.login('admin', ADMIN_PASSWORD)).token;
  const row = await h.db
    .selectFrom('users')
    .select(['id', 'tenant_id'])
    .where('username', '=', 'admin')
    .executeTakeFirstOrThrow();
  [adminId, platformId] = [row.id, row.tenant_id];
});
afterAll(() => h.close());

const get = (url: string, token: string) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });
const post = (url: string, token: string, payload: unknown) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload: payload as Record<string, unknown> });

/** A user of `tenantId` with one role of these permissions and scope; its id and token. */
async function userWith(
  tenantId: number,
  permissions: string[],
  scope: DataScope = 'all',
  departmentId: number | null = null,
): Promise<{ id: number; token: string }> {
  const username = `wo_${randomUUID().slice(0, 8)}`;
  const user = await h.db
    .insertInto('users')
    .values({
      tenant_id: tenantId,
      username,
      mobile: null,
      password_hash: await hashPassword('Passw0rd99'),
      is_super: 2,
      department_id: departmentId,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const role = await h.db
    .insertInto('roles')
    .values({ tenant_id: tenantId, code: username, name: username, permissions, data_scope: scope })
    .returning('id')
    .executeTakeFirstOrThrow();
  await h.db.insertInto('user_roles').values({ tenant_id: tenantId, user_id: user.id, role_id: role.id }).execute();
  return { id: user.id, token: (await h.login(username, 'Passw0rd99')).token };
}
const staffWith = (permissions: string[]) => userWith(platformId, permissions);

async function open(token: string, over: Record<string, unknown> = {}) {
  const res = await post('/workOrder/create', token, {
    type: 'device',
    priority: 'normal',
    title: `printer jams ${randomUUID().slice(0, 6)}`,
    descriptionHtml: '<p>It jams on every second page.</p>',
    ...over,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.body_.data as { id: number; orderNo: string; state: WorkOrderState; [k: string]: any };
}

/** Puts an order into a state directly (the state machine's table is tested from every state). */
async function force(id: number, state: WorkOrderState, over: Record<string, unknown> = {}) {
  await h.db
    .updateTable('work_orders')
    .set({
      state,
      resolved_at: state === 'resolved' || state === 'closed' ? new Date() : null,
      rating: null,
      ...over,
    })
    .where('id', '=', id)
    .execute();
}

const detailOf = async (id: number, token: string) => {
  const res = await get(`/workOrder/detail?id=${id}`, token);
  expect(res.statusCode, res.body).toBe(200);
  return res.body_.data;
};

async function uploadAttachment(token: string, name: string, bytes: Buffer) {
  const t = await get('/user/v1/user/getQnToken?bucket=attachment', token);
  expect(t.statusCode, t.body).toBe(200);
  const body = multipart({ token: t.body_.data.token }, { name, bytes });
  return h.call({ method: 'POST', url: '/apiAdmin/upload', ...body });
}

describe('opening and reading a work order', () => {
  it('opens one with a readable number and due times from the targets, seen by its tenant and by staff only', async () => {
    const before = Date.now();
    const wo = await open(A.token, { priority: 'urgent' });
    expect(wo.orderNo).toMatch(/^WO\d{8}\d{6,}$/);
    expect(wo.state).toBe('submitted');
    expect(wo.can).toMatchObject({ edit: true, withdraw: true, reply: true, take: false });
    // urgent: 30 minutes to respond, 240 to resolve (seeded targets)
    expect(new Date(wo.responseDueAt).getTime() - new Date(wo.createdAt).getTime()).toBe(30 * 60_000);
    expect(new Date(wo.resolveDueAt).getTime() - new Date(wo.createdAt).getTime()).toBe(240 * 60_000);
    expect(new Date(wo.createdAt).getTime()).toBeGreaterThanOrEqual(before - 5000);
    expect(wo.events.map((e: any) => [e.kind, e.toState])).toEqual([['state', 'submitted']]);

    const mine = await get('/workOrder/list', A.token);
    expect(mine.body_.data.list.map((o: any) => o.id)).toContain(wo.id);
    const theirs = await get('/workOrder/list', B.token);
    expect(theirs.body_.data.list.map((o: any) => o.id)).not.toContain(wo.id);
    const queue = await get(`/workOrder/list?tenantId=${A.tenantId}`, admin);
    expect(queue.statusCode).toBe(200);
    expect(queue.body_.data.list.find((o: any) => o.id === wo.id)).toMatchObject({
      tenantId: A.tenantId,
      unread: true,
    });
    // another tenant: not found, whatever the call
    for (const res of [
      await get(`/workOrder/detail?id=${wo.id}`, B.token),
      await post('/workOrder/reply', B.token, { id: wo.id, bodyHtml: '<p>hi</p>' }),
      await post('/workOrder/update', B.token, { id: wo.id, title: 'mine now' }),
      await post('/workOrder/withdraw', B.token, { id: wo.id }),
      await post('/workOrder/read', B.token, { id: wo.id }),
    ]) {
      expect(res.statusCode, res.body).toBe(404);
      expect(res.body_.msg).toBe('work order does not exist');
    }
    const row = await h.db.selectFrom('work_orders').selectAll().where('id', '=', wo.id).executeTakeFirstOrThrow();
    expect(row.title).toBe(wo.title);
    expect(row.state).toBe('submitted');
  });

  it('checks the devices and orders it names: the tenant’s own, in the caller’s data scope', async () => {
    const ids = await devicesOf(h, A.tenantId, makeSpecs(2, { prefix: 'WOA' }));
    const other = await devicesOf(h, B.tenantId, makeSpecs(1, { prefix: 'WOB' }));
    const [a1, a2] = [...ids.values()];
    const wo = await open(A.token, { deviceIds: [a1, a2] });
    expect(wo.devices.map((d: any) => d.id).sort()).toEqual([a1, a2].sort());
    const refused = await post('/workOrder/create', A.token, {
      type: 'device',
      title: 'not mine',
      deviceIds: [a1, [...other.values()][0]],
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.body_.data.fields[0].field).toBe('deviceIds');
    const order = await post('/workOrder/create', A.token, { type: 'billing', title: 'x', orderIds: [999_999] });
    expect(order.statusCode).toBe(400);
    expect(order.body_.data.fields[0].field).toBe('orderIds');
    const opts = await get('/workOrder/options?keyword=WOA', A.token);
    expect(opts.statusCode).toBe(200);
    expect(opts.body_.data.devices.map((d: any) => d.id).sort()).toEqual([a1, a2].sort());
    expect((await get('/workOrder/options', B.token)).body_.data.devices.map((d: any) => d.id)).toEqual([
      ...other.values(),
    ]);
  });

  it('opens one order per submission: the same clientRequestId again, or twice at once, answers the first', async () => {
    const clientRequestId = `form-${randomUUID()}`;
    const first = await open(A.token, { clientRequestId, title: 'once only' });
    const again = await open(A.token, { clientRequestId, title: 'once only' });
    expect(again.id).toBe(first.id);
    const twin = `form-${randomUUID()}`;
    const both = await Promise.all([
      open(A.token, { clientRequestId: twin }),
      open(A.token, { clientRequestId: twin }),
    ]);
    expect(both[0].id).toBe(both[1].id);
    const rows = await h.db
      .selectFrom('work_orders')
      .select('id')
      .where('client_request_id', 'in', [clientRequestId, twin])
      .execute();
    expect(rows).toHaveLength(2);
    // another account's same id is its own submission
    const theirs = await open(B.token, { clientRequestId });
    expect(theirs.id).not.toBe(first.id);
    const logged = await h.db
      .selectFrom('audit_log')
      .select('id')
      .where('action', '=', 'workOrder.create')
      .where('resource_id', '=', String(first.id))
      .execute();
    expect(logged).toHaveLength(1);
  });

  it('refuses bad input with 400 naming the field, and changes nothing', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/workOrder/create', { type: 'device', title: '' }, 'title'],
      ['POST', '/workOrder/create', { type: 'nonsense', title: 'x' }, 'type'],
      ['POST', '/workOrder/create', { type: 'device', title: 'x', priority: 'asap' }, 'priority'],
      ['POST', '/workOrder/create', { type: 'device', title: 'x', deviceIds: ['1'] }, 'deviceIds.0'],
      ['POST', '/workOrder/create', { type: 'device', title: 'x', attachments: ['nope'] }, 'attachments.0'],
      [
        'POST',
        '/workOrder/create',
        { type: 'device', title: 'x', attachments: ['20261126/0123456789abcdef/a\u0000'] },
        'attachments.0',
      ],
      ['GET', '/workOrder/list?state=open', null, 'state'],
      ['GET', '/workOrder/list?pageSize=0', null, 'pageSize'],
      ['GET', '/workOrder/detail?id=abc', null, 'id'],
      ['POST', '/workOrder/rate', { id: 1, rating: 6 }, 'rating'],
      ['POST', '/workOrder/create', { type: 'device', title: 'x', clientRequestId: 'short' }, 'clientRequestId'],
    ];
    const count = async () =>
      Number(
        (
          await h.db
            .selectFrom('work_orders')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const n = await count();
    for (const [method, url, payload, field] of cases) {
      const res =
        method === 'GET' ? await get(url, A.token) : await post(url, A.token, payload as Record<string, unknown>);
      expect(res.statusCode, `${url} ${res.body}`).toBe(400);
      expect(res.body_.data.fields.map((f: any) => f.field)).toContain(field);
    }
    const staff = await get('/workOrder/list?assignee=someone', admin);
    expect(staff.statusCode).toBe(400);
    expect(await count()).toBe(n);
  });
});

describe('the state machine', () => {
  const STATES: WorkOrderState[] = ['submitted', 'processing', 'waiting', 'resolved', 'closed', 'withdrawn'];
  /** For each call, the state it leads to from each state it is allowed in; every other state is refused (409). */
  const ALLOWED: Record<string, Partial<Record<WorkOrderState, WorkOrderState>>> = {
    'customer update': { submitted: 'submitted' },
    'customer withdraw': { submitted: 'withdrawn' },
    'customer reply': { submitted: 'submitted', processing: 'processing', waiting: 'processing' },
    'customer reopen': { resolved: 'processing' },
    'customer close': { resolved: 'closed' },
    'customer rate': { closed: 'closed' },
    'staff take': { submitted: 'processing', processing: 'processing', waiting: 'waiting' },
    'staff assign': { submitted: 'processing', processing: 'processing', waiting: 'waiting' },
    'staff reply': { submitted: 'processing', processing: 'processing', waiting: 'waiting' },
    'staff ask': { submitted: 'waiting', processing: 'waiting', waiting: 'waiting' },
    'staff note': {
      submitted: 'submitted',
      processing: 'processing',
      waiting: 'waiting',
      resolved: 'resolved',
      closed: 'closed',
      withdrawn: 'withdrawn',
    },
    'staff resolve': { submitted: 'resolved', processing: 'resolved', waiting: 'resolved' },
  };
  const call = (what: string, id: number) => {
    const text = { bodyHtml: '<p>words</p>' };
    switch (what) {
      case 'customer update':
        return post('/workOrder/update', A.token, { id, title: 'edited title' });
      case 'customer withdraw':
        return post('/workOrder/withdraw', A.token, { id });
      case 'customer reply':
        return post('/workOrder/reply', A.token, { id, ...text });
      case 'customer reopen':
        return post('/workOrder/reopen', A.token, { id });
      case 'customer close':
        return post('/workOrder/close', A.token, { id });
      case 'customer rate':
        return post('/workOrder/rate', A.token, { id, rating: 4, comment: 'fine' });
      case 'staff take':
        return post('/workOrder/take', admin, { id });
      case 'staff assign':
        return post('/workOrder/assign', admin, { id, assigneeId: adminId });
      case 'staff resolve':
        return post('/workOrder/resolve', admin, { id, ...text });
      default:
        return post('/workOrder/reply', admin, { id, ...text, action: what.split(' ')[1] });
    }
  };

  it('allows exactly the transitions of the table and refuses every other with 409 naming the state', async () => {
    const wo = await open(A.token);
    const seen: string[] = [];
    for (const [what, allowed] of Object.entries(ALLOWED)) {
      for (const from of STATES) {
        await force(wo.id, from, { assignee_id: null });
        const res = await call(what, wo.id);
        const to = allowed[from];
        const row = await h.db
          .selectFrom('work_orders')
          .select('state')
          .where('id', '=', wo.id)
          .executeTakeFirstOrThrow();
        if (to) {
          expect(res.statusCode, `${what} from ${from}: ${res.body}`).toBe(200);
          expect(res.body_.data.state, `${what} from ${from}`).toBe(to);
          expect(row.state).toBe(to);
        } else {
          expect(res.statusCode, `${what} from ${from}: ${res.body}`).toBe(409);
          expect(row.state, `${what} from ${from} changed nothing`).toBe(from);
          expect(res.body_.msg.length).toBeGreaterThan(10);
        }
        seen.push(`${what}:${from}:${res.statusCode}`);
      }
    }
    expect(seen).toHaveLength(Object.keys(ALLOWED).length * STATES.length);
  });

  it('says clearly why: taken, closed, too late to reopen', async () => {
    const wo = await open(A.token);
    await post('/workOrder/take', admin, { id: wo.id });
    const edit = await post('/workOrder/update', A.token, { id: wo.id, title: 'too late' });
    expect(edit.statusCode).toBe(409);
    expect(edit.body_.msg).toBe('this work order was taken by staff and can no longer be edited');
    const zh = await h.call({
      method: 'POST',
      url: '/apiAdmin/workOrder/update',
      token: A.token,
      headers: { 'accept-language': 'zh-CN' },
      payload: { id: wo.id, title: 'too late' },
    });
    expect(zh.body_.msg).toBe('该工单已被客服受理，不能再编辑');

    await force(wo.id, 'closed');
    const reply = await post('/workOrder/reply', A.token, { id: wo.id, bodyHtml: '<p>more</p>' });
    expect(reply.statusCode).toBe(409);
    expect(reply.body_.msg).toBe('a closed work order takes no replies');
    const staffReply = await post('/workOrder/reply', admin, { id: wo.id, bodyHtml: '<p>more</p>' });
    expect(staffReply.body_.msg).toBe('a closed work order takes no replies');

    await force(wo.id, 'resolved', { resolved_at: new Date(Date.now() - 8 * 86_400_000) });
    const reopen = await post('/workOrder/reopen', A.token, { id: wo.id });
    expect(reopen.statusCode).toBe(409);
    expect(reopen.body_.msg).toBe('reopen is possible within 7 days of resolution');

    await force(wo.id, 'processing');
    const withdraw = await post('/workOrder/withdraw', A.token, { id: wo.id });
    expect(withdraw.body_.msg).toBe(
      'this work order is in progress: only a work order staff have not taken yet can be withdrawn',
    );
  });

  it('serialises a withdraw and a take that arrive together: one wins, the other is refused', async () => {
    for (let k = 0; k < 5; k++) {
      const wo = await open(A.token);
      const [withdraw, take] = await Promise.all([
        post('/workOrder/withdraw', A.token, { id: wo.id }),
        post('/workOrder/take', admin, { id: wo.id }),
      ]);
      expect([withdraw.statusCode, take.statusCode].sort()).toEqual([200, 409]);
      const d = await detailOf(wo.id, admin);
      expect(d.state).toBe(withdraw.statusCode === 200 ? 'withdrawn' : 'processing');
      // exactly one state change after the opening
      expect(d.events.filter((e: any) => e.kind === 'state')).toHaveLength(2);
    }
  });

  it('closes resolved orders by itself after 7 days, and no sooner', async () => {
    const [old, fresh] = [await open(A.token), await open(A.token)];
    await force(old.id, 'resolved', { resolved_at: new Date(Date.now() - 7 * 86_400_000 - 60_000) });
    await force(fresh.id, 'resolved', { resolved_at: new Date(Date.now() - 6 * 86_400_000) });
    const announced: number[] = [];
    expect(await closeResolvedOrders(h.db, { announce: async (id: number) => void announced.push(id) })).toBe(1);
    expect(announced).toEqual([old.id]);
    const d = await detailOf(old.id, A.token);
    expect(d.state).toBe('closed');
    expect(d.events.at(-1)).toMatchObject({ kind: 'state', side: 'system', fromState: 'resolved', toState: 'closed' });
    expect(d.can.rate).toBe(true);
    expect((await detailOf(fresh.id, A.token)).state).toBe('resolved');
    const logged = await h.db
      .selectFrom('audit_log')
      .select('action')
      .where('action', '=', 'workOrder.autoClose')
      .where('resource_id', '=', String(old.id))
      .execute();
    expect(logged).toHaveLength(1);
  });
});

describe('the conversation', () => {
  const messagesOf = async (token: string) =>
    (await get('/message/getList?pageSize=50', token)).body_.data.list as Array<{
      kind: string;
      title: string;
      link: string;
    }>;

  it('runs from opening to rating: replies, a question, internal notes, unread, messages, timeline', async () => {
    const handler = await staffWith([PERMISSIONS.workOrderHandle]);
    const wo = await open(A.token);
    const assigned = await post('/workOrder/assign', admin, { id: wo.id, assigneeId: handler.id });
    expect(assigned.statusCode, assigned.body).toBe(200);
    expect(assigned.body_.data).toMatchObject({ state: 'processing', assignee: { id: handler.id } });
    expect((await messagesOf(handler.token)).map((m) => [m.kind, m.title, m.link])).toEqual([
      ['workOrder.assigned', 'A work order was assigned to you', `/workOrder/detail?id=${wo.id}`],
    ]);

    const ask = await post('/workOrder/reply', handler.token, {
      id: wo.id,
      bodyHtml: '<p>Which tray?</p>',
      action: 'ask',
    });
    expect(ask.body_.data.state).toBe('waiting');
    expect(ask.body_.data.firstResponseAt).not.toBeNull();
    const asked = await messagesOf(A.token);
    expect(asked[0]).toMatchObject({
      kind: 'workOrder.asked',
      title: 'Staff asked about your work order',
      link: `/workOrder/detail?id=${wo.id}`,
    });
    const zhMsg = await h.call({
      method: 'GET',
      url: '/apiAdmin/message/getList',
      token: A.token,
      headers: { 'accept-language': 'zh-CN' },
    });
    expect(zhMsg.body_.data.list[0].title).toBe('客服需要您补充工单信息');

    const unread = async () =>
      (await get('/workOrder/list?unread=true&pageSize=100', A.token)).body_.data.list.map((o: any) => o.id);
    expect(await unread()).toContain(wo.id);
    expect((await post('/workOrder/read', A.token, { id: wo.id })).statusCode).toBe(200);
    expect(await unread()).not.toContain(wo.id);

    const note = await post('/workOrder/reply', handler.token, {
      id: wo.id,
      bodyHtml: '<p>internal: customer uses tray 2 firmware 1.0</p>',
      action: 'note',
    });
    expect(note.statusCode).toBe(200);
    // the note: neither unread, nor a message, nor in the customer's timeline
    expect(await unread()).not.toContain(wo.id);
    expect(await messagesOf(A.token)).toHaveLength(asked.length);
    const seenByCustomer = await detailOf(wo.id, A.token);
    expect(JSON.stringify(seenByCustomer)).not.toContain('internal');
    expect(seenByCustomer.events.some((e: any) => e.kind === 'note')).toBe(false);
    expect((await detailOf(wo.id, handler.token)).events.some((e: any) => e.kind === 'note')).toBe(true);

    const answer = await post('/workOrder/reply', A.token, { id: wo.id, bodyHtml: '<p>Tray 2.</p>' });
    expect(answer.body_.data.state).toBe('processing');
    expect((await messagesOf(handler.token))[0]).toMatchObject({ kind: 'workOrder.customerReplied' });
    const staffUnread = await get('/workOrder/list?unread=true&assignee=me&pageSize=100', handler.token);
    expect(staffUnread.body_.data.list.map((o: any) => o.id)).toContain(wo.id);

    const resolved = await post('/workOrder/resolve', handler.token, { id: wo.id, bodyHtml: '<p>Replace roller.</p>' });
    expect(resolved.body_.data.state).toBe('resolved');
    expect((await messagesOf(A.token))[0]).toMatchObject({ kind: 'workOrder.resolved' });
    const forCustomer = await detailOf(wo.id, A.token);
    expect(forCustomer.can).toMatchObject({ reopen: true, close: true, reply: false, edit: false });
    expect(new Date(forCustomer.reopenUntil).getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);

    const reopened = await post('/workOrder/reopen', A.token, { id: wo.id });
    expect(reopened.body_.data.state).toBe('processing');
    expect((await messagesOf(handler.token))[0]).toMatchObject({ kind: 'workOrder.reopened' });
    await post('/workOrder/resolve', handler.token, { id: wo.id, bodyHtml: '' });
    const closed = await post('/workOrder/close', A.token, { id: wo.id });
    expect(closed.body_.data).toMatchObject({ state: 'closed', can: { rate: true, reply: false } });
    const rated = await post('/workOrder/rate', A.token, { id: wo.id, rating: 5, comment: 'quick, thanks' });
    expect(rated.body_.data).toMatchObject({ rating: 5, ratingComment: 'quick, thanks', can: { rate: false } });
    const again = await post('/workOrder/rate', A.token, { id: wo.id, rating: 1 });
    expect(again.statusCode).toBe(409);
    expect(again.body_.msg).toBe('this work order was rated already');

    const timeline = (await detailOf(wo.id, handler.token)).events.map((e: any) =>
      e.kind === 'state' ? `${e.fromState ?? ''}>${e.toState}` : `${e.kind}:${e.side}`,
    );
    expect(timeline).toEqual([
      '>submitted',
      'submitted>processing',
      'assign:staff',
      'reply:staff',
      'processing>waiting',
      'note:staff',
      'reply:customer',
      'waiting>processing',
      'reply:staff',
      'processing>resolved',
      'resolved>processing',
      'processing>resolved',
      'resolved>closed',
      'rating:customer',
    ]);
    const actions = await h.db
      .selectFrom('audit_log')
      .select('action')
      .where('resource', '=', 'workOrder')
      .where('resource_id', '=', String(wo.id))
      .orderBy('id')
      .execute();
    expect(actions.map((a) => a.action)).toEqual([
      'workOrder.create',
      'workOrder.assign',
      'workOrder.ask',
      'workOrder.note',
      'workOrder.reply',
      'workOrder.resolve',
      'workOrder.reopen',
      'workOrder.resolve',
      'workOrder.close',
      'workOrder.rate',
    ]);
  });

  it('tells the sub-account that opened it and the main account, once each; a note tells nobody', async () => {
    const sub = await userWith(A.tenantId, [PERMISSIONS.workOrderView, PERMISSIONS.workOrderEdit], 'own');
    const bystander = await userWith(A.tenantId, [PERMISSIONS.workOrderView]);
    const wo = await open(sub.token);
    const [subBefore, mainBefore] = [(await messagesOf(sub.token)).length, (await messagesOf(A.token)).length];
    await post('/workOrder/reply', admin, { id: wo.id, bodyHtml: '<p>internal</p>', action: 'note' });
    await post('/workOrder/reply', admin, { id: wo.id, bodyHtml: '<p>On it.</p>' });
    const subMessages = await messagesOf(sub.token);
    const mainMessages = await messagesOf(A.token);
    expect(subMessages).toHaveLength(subBefore + 1);
    expect(mainMessages).toHaveLength(mainBefore + 1);
    for (const m of [subMessages[0], mainMessages[0]])
      expect(m).toMatchObject({ kind: 'workOrder.replied', link: `/workOrder/detail?id=${wo.id}` });
    expect(await messagesOf(bystander.token)).toEqual([]);
  });

  it('lets the customer edit and withdraw before staff take it, with the edit in the timeline and the log', async () => {
    const wo = await open(A.token, { priority: 'low' });
    const edited = await post('/workOrder/update', A.token, { id: wo.id, title: 'new title', priority: 'urgent' });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.body_.data).toMatchObject({ title: 'new title', priority: 'urgent' });
    // the new priority's targets, from when it was opened
    expect(new Date(edited.body_.data.responseDueAt).getTime() - new Date(wo.createdAt).getTime()).toBe(30 * 60_000);
    expect(edited.body_.data.events.at(-1)).toMatchObject({ kind: 'edit', data: { fields: ['priority', 'title'] } });
    const log = await h.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'workOrder.update')
      .where('resource_id', '=', String(wo.id))
      .executeTakeFirstOrThrow();
    expect((log.details as any).changes.title).toEqual({ before: wo.title, after: 'new title' });
    const gone = await post('/workOrder/withdraw', A.token, { id: wo.id });
    expect(gone.body_.data).toMatchObject({ state: 'withdrawn', can: { edit: false, reply: false } });
  });
});

describe('permissions', () => {
  it('holds customers to workOrder:view / workOrder:edit and staff to workOrder:handle', async () => {
    const wo = await open(A.token);
    const none = await userWith(A.tenantId, [PERMISSIONS.deviceView]);
    const viewer = await userWith(A.tenantId, [PERMISSIONS.workOrderView]);
    expect((await get('/workOrder/list', none.token)).statusCode).toBe(403);
    expect((await get(`/workOrder/detail?id=${wo.id}`, none.token)).statusCode).toBe(403);
    expect((await get('/workOrder/list', viewer.token)).statusCode).toBe(200);
    expect((await detailOf(wo.id, viewer.token)).can).toMatchObject({ edit: false, reply: false, withdraw: false });
    expect((await post('/workOrder/create', viewer.token, { type: 'other', title: 'x' })).statusCode).toBe(403);
    expect((await post('/workOrder/reply', viewer.token, { id: wo.id, bodyHtml: '<p>x</p>' })).statusCode).toBe(403);
    // a customer is never staff
    for (const res of [
      await post('/workOrder/take', A.token, { id: wo.id }),
      await post('/workOrder/assign', A.token, { id: wo.id, assigneeId: adminId }),
      await get('/workOrder/assignees', A.token),
      await get('/workOrder/canned/list', A.token),
      await post('/workOrder/targets', A.token, {
        targets: [{ priority: 'low', responseMinutes: 1, resolveMinutes: 2 }],
      }),
    ])
      expect(res.statusCode, res.body).toBe(403);
    const note = await post('/workOrder/reply', A.token, { id: wo.id, bodyHtml: '<p>x</p>', action: 'note' });
    expect(note.statusCode).toBe(400);

    // staff without workOrder:handle: nothing, even holding the customer's codes
    const other = await staffWith([PERMISSIONS.noticeEdit, PERMISSIONS.workOrderView, PERMISSIONS.workOrderEdit]);
    for (const res of [
      await get('/workOrder/list', other.token),
      await get(`/workOrder/detail?id=${wo.id}`, other.token),
      await post('/workOrder/take', other.token, { id: wo.id }),
      await post('/workOrder/reply', other.token, { id: wo.id, bodyHtml: '<p>x</p>' }),
      await post('/workOrder/read', other.token, { id: wo.id }),
      await get('/workOrder/assignees', other.token),
    ])
      expect(res.statusCode, res.body).toBe(403);
    expect((await post('/workOrder/create', other.token, { type: 'other', title: 'x' })).statusCode).toBe(403);

    const handler = await staffWith([PERMISSIONS.workOrderHandle]);
    expect((await get(`/workOrder/detail?id=${wo.id}`, handler.token)).statusCode).toBe(200);
    expect((await get('/workOrder/targets', handler.token)).statusCode).toBe(200);
    const targets = await post('/workOrder/targets', handler.token, {
      targets: [{ priority: 'low', responseMinutes: 60, resolveMinutes: 120 }],
    });
    expect(targets.statusCode).toBe(403);
    const assignees = (await get('/workOrder/assignees', handler.token)).body_.data.map((p: any) => p.id);
    expect(assignees).toEqual(expect.arrayContaining([adminId, handler.id]));
    expect(assignees).not.toContain(other.id);
    const bad = await post('/workOrder/assign', handler.token, { id: wo.id, assigneeId: other.id });
    expect(bad.statusCode).toBe(400);
    expect(bad.body_.data.fields[0].field).toBe('assigneeId');
  });

  it('applies the data scope: own orders, or the department subtree', async () => {
    const north = (await post('/system/department/add', A.token, { name: 'WO North', parentId: null })).body_.data.id;
    const east = (await post('/system/department/add', A.token, { name: 'WO East', parentId: north })).body_.data.id;
    const rights = [PERMISSIONS.workOrderView, PERMISSIONS.workOrderEdit];
    const own = await userWith(A.tenantId, rights, 'own', east);
    const dept = await userWith(A.tenantId, rights, 'department', north);
    const o1 = await open(own.token);
    const o2 = await open(dept.token);
    const o3 = await open(A.token);
    const ids = async (token: string) =>
      (await get('/workOrder/list?pageSize=100', token)).body_.data.list.map((o: any) => o.id);
    expect(await ids(own.token)).toEqual([o1.id]);
    expect((await ids(dept.token)).sort()).toEqual([o1.id, o2.id].sort());
    expect(await ids(A.token)).toEqual(expect.arrayContaining([o1.id, o2.id, o3.id]));
    expect((await get(`/workOrder/detail?id=${o2.id}`, own.token)).statusCode).toBe(404);
    expect((await post('/workOrder/withdraw', own.token, { id: o3.id })).statusCode).toBe(404);
    expect((await get(`/workOrder/detail?id=${o3.id}`, dept.token)).statusCode).toBe(404);
  });
});

describe('rich text and attachments', () => {
  const PAYLOADS = [
    '<script>alert(1)</script>',
    '<img src=x onerror="alert(2)">',
    '<a href="javascript:alert(3)">click</a>',
    '<svg onload="alert(4)"><circle r="1"/></svg>',
    '<p onclick="alert(5)" style="background:url(javascript:alert(6))">text</p>',
    '<iframe src="javascript:alert(7)"></iframe>',
  ].join('');
  const BAD = /<script|onerror|javascript:|<svg|onload|onclick|<iframe|alert\(/i;

  it('sanitises descriptions and replies on save and on the answer', async () => {
    const wo = await open(A.token, { descriptionHtml: `<p>hello</p>${PAYLOADS}` });
    expect(wo.descriptionHtml).not.toMatch(BAD);
    expect(wo.descriptionHtml).toContain('hello');
    const reply = await post('/workOrder/reply', admin, { id: wo.id, bodyHtml: `<p>answer</p>${PAYLOADS}` });
    expect(reply.statusCode).toBe(200);
    const rows = await h.db
      .selectFrom('work_order_events')
      .select('body_html')
      .where('work_order_id', '=', wo.id)
      .execute();
    const stored = await h.db
      .selectFrom('work_orders')
      .select('description_html')
      .where('id', '=', wo.id)
      .executeTakeFirstOrThrow();
    for (const html of [stored.description_html, ...rows.map((r) => r.body_html)]) expect(html).not.toMatch(BAD);
    // a row written around the server is still answered as it was stored (the browser sanitises again)
    expect(JSON.stringify(await detailOf(wo.id, A.token))).not.toMatch(BAD);
    // NUL (which PostgreSQL cannot store) is dropped, not a 500
    const nul = await post('/workOrder/reply', A.token, { id: wo.id, bodyHtml: '<p>a\u0000b</p>' });
    expect(nul.statusCode, nul.body).toBe(200);
    expect(nul.body_.data.events.at(-1).bodyHtml).toBe('<p>ab</p>');
    // a script-only reply is nothing
    const empty = await post('/workOrder/reply', A.token, { id: wo.id, bodyHtml: '<script>alert(1)</script>' });
    expect(empty.statusCode).toBe(400);
    expect(empty.body_.data.fields[0].field).toBe('bodyHtml');
  });

  it('shows an uploaded image of one’s own, refuses another tenant’s', async () => {
    const mine = await uploadImage(h, A.token);
    const theirs = await uploadImage(h, B.token);
    const wo = await open(A.token, { descriptionHtml: `<p><img src="/apiAdmin/objects/${mine}?exp=1&sig=x"></p>` });
    expect(wo.descriptionHtml).toContain('data-object-key');
    expect(wo.descriptionHtml).toMatch(/src="\/apiAdmin\/objects\/[^"]+sig=/);
    const refused = await post('/workOrder/create', A.token, {
      type: 'other',
      title: 'x',
      descriptionHtml: `<img data-object-key="${theirs}">`,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.body_.data.fields[0].field).toBe('descriptionHtml');
  });

  it('takes attachments checked by their bytes, ≤ 10 MB, shown only to the order’s readers', async () => {
    const log = await uploadAttachment(A.token, 'printer.log', Buffer.from('2026-11-26 jam at tray 2\nрусский 中文\n'));
    expect(log.statusCode, log.body).toBe(200);
    expect(log.body_.data.mime).toBe('text/plain');
    const png = await uploadAttachment(A.token, 'photo.png', PNG_1x1);
    expect(png.statusCode).toBe(200);

    const liar = await uploadAttachment(A.token, 'report.pdf', PNG_1x1);
    expect(liar.statusCode).toBe(400);
    expect(liar.body_.msg).toBe('file: the file is not what its name says: its bytes are png');
    const binaryText = await uploadAttachment(A.token, 'notes.txt', Buffer.from([0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00]));
    expect(binaryText.statusCode).toBe(400);
    const pngAsTxt = await uploadAttachment(A.token, 'notes.txt', PNG_1x1);
    expect(pngAsTxt.statusCode).toBe(400);
    const exe = await uploadAttachment(A.token, 'setup.exe', Buffer.from('MZ'));
    expect(exe.statusCode).toBe(400);
    const big = await uploadAttachment(A.token, 'big.txt', Buffer.alloc(10 * 1024 * 1024 + 1, 0x61));
    expect(big.statusCode).toBe(400);
    expect(big.body_.data.fields[0].field).toBe('file');

    const wo = await open(A.token, { attachments: [log.body_.data.key] });
    expect(wo.attachments).toHaveLength(1);
    expect(wo.attachments[0]).toMatchObject({ name: 'printer.log', mime: 'text/plain' });
    const file = await h.call({ method: 'GET', url: wo.attachments[0].url });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-disposition']).toBe('attachment');
    expect(file.body).toContain('jam at tray 2');

    const reply = await post('/workOrder/reply', A.token, {
      id: wo.id,
      bodyHtml: '',
      attachments: [png.body_.data.key],
    });
    expect(reply.statusCode, reply.body).toBe(200);
    expect(reply.body_.data.events.at(-1).attachments[0]).toMatchObject({ name: 'photo.png', mime: 'image/png' });

    // an image uploaded for rich text is not an attachment; another tenant's attachment is not one's own
    const image = await uploadImage(h, A.token);
    const notAttachment = await post('/workOrder/reply', A.token, { id: wo.id, bodyHtml: 'x', attachments: [image] });
    expect(notAttachment.statusCode).toBe(400);
    expect(notAttachment.body_.data.fields[0].field).toBe('attachments');
    const stolen = await post('/workOrder/create', B.token, {
      type: 'other',
      title: 'x',
      attachments: [log.body_.data.key],
    });
    expect(stolen.statusCode).toBe(400);
    // edit: drop the attachment
    const dropped = await post('/workOrder/update', A.token, { id: wo.id, attachments: [] });
    expect(dropped.body_.data.attachments).toEqual([]);
  });
});

describe('the staff queue', () => {
  it('filters by tenant, state, type, priority, time, keyword, assignee, overdue and unread', async () => {
    const C = await customer(h);
    await h.db.updateTable('tenants').set({ name: 'Zebra Printing Ltd' }).where('id', '=', C.tenantId).execute();
    const a = await open(C.token, { type: 'billing', priority: 'high', title: 'invoice missing' });
    const b = await open(C.token, { type: 'device', priority: 'low', title: 'paper jam' });
    const c = await open(C.token, { type: 'traffic', priority: 'urgent', title: 'SIM offline' });
    await post('/workOrder/take', admin, { id: b.id });
    await h.db
      .updateTable('work_orders')
      .set({ response_due_at: new Date(Date.now() - 60_000) })
      .where('id', '=', c.id)
      .execute();
    await post('/workOrder/read', admin, { id: a.id });
    const q = async (query: string) => {
      const res = await get(`/workOrder/list?tenantId=${C.tenantId}&pageSize=50&${query}`, admin);
      expect(res.statusCode, res.body).toBe(200);
      return res.body_.data.list.map((o: any) => o.id).sort();
    };
    const all = [a.id, b.id, c.id].sort();
    expect(await q('')).toEqual(all);
    expect(await q('state=submitted')).toEqual([a.id, c.id].sort());
    expect(await q('state=processing,withdrawn')).toEqual([b.id]);
    expect(await q('type=billing')).toEqual([a.id]);
    expect(await q('priority=low')).toEqual([b.id]);
    expect(await q(`from=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`)).toEqual(all);
    expect(await q(`to=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`)).toEqual([]);
    expect(await q('keyword=jam')).toEqual([b.id]);
    expect(await q(`keyword=${c.orderNo}`)).toEqual([c.id]);
    expect(await q('assignee=me')).toEqual([b.id]);
    expect(await q(`assignee=${adminId}`)).toEqual([b.id]);
    expect(await q('assignee=none')).toEqual([a.id, c.id].sort());
    expect(await q('overdue=true')).toEqual([c.id]);
    expect(await q('overdue=false')).toEqual([a.id, b.id].sort());
    expect(await q('unread=true')).toEqual([b.id, c.id].sort());
    // the account's name finds its orders across the queue
    const byName = await get('/workOrder/list?keyword=zebra&pageSize=50', admin);
    expect(byName.body_.data.list.map((o: any) => o.id).sort()).toEqual(all);
    expect(byName.body_.data.list[0].tenantName).toBe('Zebra Printing Ltd');
    // the name and a title at once, newest first, paged, with other filters kept
    const titled = await open(A.token, { title: 'zebra stripes on every print', type: 'printing' });
    const both = await get('/workOrder/list?keyword=zebra&pageSize=50', admin);
    expect(both.body_.data.list.map((o: any) => o.id)).toEqual([titled.id, c.id, b.id, a.id]);
    expect(both.body_.data.total).toBe(4);
    const page2 = await get('/workOrder/list?keyword=zebra&pageSize=2&pageNo=2', admin);
    expect(page2.body_.data.list.map((o: any) => o.id)).toEqual([b.id, a.id]);
    expect(page2.body_.data.total).toBe(4);
    const printing = await get('/workOrder/list?keyword=zebra&type=printing&pageSize=50', admin);
    expect(printing.body_.data.list.map((o: any) => o.id)).toEqual([titled.id]);
    const overdue = (await get(`/workOrder/detail?id=${c.id}`, admin)).body_.data;
    expect(overdue.overdue).toBe(true);
    // a customer's tenantId / assignee / overdue are ignored: its own orders only
    const own = await get(`/workOrder/list?tenantId=${C.tenantId}&pageSize=50`, A.token);
    expect(own.body_.data.list.map((o: any) => o.id)).not.toContain(a.id);
  });

  it('sets targets (for orders opened afterwards) and keeps canned replies', async () => {
    const settings = await staffWith([PERMISSIONS.workOrderHandle, PERMISSIONS.workOrderSettings]);
    const before = await open(A.token, { priority: 'high' });
    const set = await post('/workOrder/targets', settings.token, {
      targets: [{ priority: 'high', responseMinutes: 15, resolveMinutes: 90 }],
    });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.body_.data.find((t: any) => t.priority === 'high')).toEqual({
      priority: 'high',
      responseMinutes: 15,
      resolveMinutes: 90,
    });
    const after = await open(A.token, { priority: 'high' });
    expect(new Date(after.responseDueAt).getTime() - new Date(after.createdAt).getTime()).toBe(15 * 60_000);
    const kept = await detailOf(before.id, A.token);
    expect(new Date(kept.responseDueAt).getTime() - new Date(kept.createdAt).getTime()).toBe(120 * 60_000);
    for (const targets of [
      [
        { priority: 'low', responseMinutes: 10, resolveMinutes: 20 },
        { priority: 'low', responseMinutes: 10, resolveMinutes: 20 },
      ],
      [{ priority: 'low', responseMinutes: 100, resolveMinutes: 20 }],
      [{ priority: 'low', responseMinutes: 0, resolveMinutes: 20 }],
    ]) {
      const res = await post('/workOrder/targets', settings.token, { targets });
      expect(res.statusCode, res.body).toBe(400);
    }

    const handler = await staffWith([PERMISSIONS.workOrderHandle]);
    const own = await post('/workOrder/canned/create', handler.token, {
      title: 'Roller',
      bodyHtml: '<p>Replace the roller<script>x</script></p>',
    });
    expect(own.statusCode, own.body).toBe(200);
    expect(own.body_.data).toEqual({
      id: own.body_.data.id,
      title: 'Roller',
      bodyHtml: '<p>Replace the roller</p>',
      shared: false,
    });
    const shared = await post('/workOrder/canned/create', handler.token, {
      title: 'Hi',
      bodyHtml: '<p>Hi</p>',
      shared: true,
    });
    expect(shared.statusCode).toBe(403);
    const sharedOk = await post('/workOrder/canned/create', settings.token, {
      title: 'Hello',
      bodyHtml: '<p>Hello</p>',
      shared: true,
    });
    expect(sharedOk.statusCode).toBe(200);
    const list = async (token: string) =>
      (await get('/workOrder/canned/list', token)).body_.data.map((r: any) => r.title);
    expect(await list(handler.token)).toEqual(['Hello', 'Roller']);
    expect(await list(settings.token)).toEqual(['Hello']);
    // another's own reply is not found; a shared one needs settings
    expect((await post('/workOrder/canned/delete', settings.token, { id: own.body_.data.id })).statusCode).toBe(404);
    expect(
      (await post('/workOrder/canned/update', handler.token, { id: sharedOk.body_.data.id, title: 'x' })).statusCode,
    ).toBe(403);
    const renamed = await post('/workOrder/canned/update', handler.token, { id: own.body_.data.id, title: 'Roller 2' });
    expect(renamed.body_.data.title).toBe('Roller 2');
    expect((await post('/workOrder/canned/delete', handler.token, { id: own.body_.data.id })).statusCode).toBe(200);
    expect(await list(handler.token)).toEqual(['Hello']);
  });
});

describe('live events', () => {
  it('tells the tenant’s consoles and staff’s; an internal note only staff’s', async () => {
    const base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const [customerStream, staffStream, otherStream] = [
      await openEvents(h, base, A.token),
      await openEvents(h, base, admin),
      await openEvents(h, base, B.token),
    ];
    try {
      const wo = await open(A.token);
      const isIt = (state: string) => (e: any) =>
        e.type === 'workOrder' && e.data.id === wo.id && e.data.state === state;
      await customerStream.waitFor('customer: opened', isIt('submitted'));
      await staffStream.waitFor('staff: opened', isIt('submitted'));
      await post('/workOrder/reply', admin, { id: wo.id, bodyHtml: '<p>note</p>', action: 'note' });
      await staffStream.waitFor('staff: two', () => staffStream.events.filter(isIt('submitted')).length === 2);
      await post('/workOrder/take', admin, { id: wo.id });
      await customerStream.waitFor('customer: taken', isIt('processing'));
      // the note never reached the customer: one `submitted` event only, the opening
      expect(customerStream.events.filter(isIt('submitted'))).toHaveLength(1);
      expect(otherStream.events.some((e: any) => e.type === 'workOrder' && e.data.id === wo.id)).toBe(false);
      expect(customerStream.events.some((e: any) => e.type === 'message')).toBe(false);
    } finally {
      customerStream.close();
      staffStream.close();
      otherStream.close();
    }
  });
});
