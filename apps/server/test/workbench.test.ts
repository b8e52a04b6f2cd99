import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS, type WorkbenchSection, type WorkbenchSummary } from '@cpc/contracts';
import { ADMIN_PASSWORD, createHarness, multipart, registerCustomer, type Harness } from './harness.ts';
import { subAccountWith } from './device-helpers.ts';

let h: Harness;
let staff: string;
let platformTenant: number;
beforeAll(async () => {
  h = await createHarness();
  staff = (await h.login('admin', ADMIN_PASSWORD)).token;
  await post('/system/deviceModel/add', staff, { code: 'P80', name: 'Printer 80', kind: 'printer', paperWidthMm: 80 });
  platformTenant = (
    await h.db.selectFrom('tenants').select('id').where('kind', '=', 'platform').executeTakeFirstOrThrow()
  ).id;
});
afterAll(() => h.close());

const get = (url: string, token: string) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });
const post = (url: string, token: string, payload: unknown) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload: payload as Record<string, unknown> });

const DAY = 86_400_000;
const ago = (ms: number) => new Date(Date.now() - ms);
const ahead = (ms: number) => new Date(Date.now() + ms);

let seq = 0;
async function boundDevices(token: string, n: number) {
  const rows = Array.from({ length: n }, (_, i) => `WB${process.pid % 1000}-${++seq}-${i},P80`);
  const reg = await h.call({
    method: 'POST',
    url: '/apiAdmin/system/deviceRegistry/import',
    token: staff,
    ...multipart({}, { name: 'd.csv', bytes: Buffer.from(['sn,model', ...rows].join('\n')) }),
  });
  const devices = reg.body_.data.devices as Array<{ id: number; sn: string; bindKey: string; iccid: string }>;
  for (const d of devices)
    expect((await post('/device/bind', token, { sn: d.sn, bindKey: d.bindKey })).statusCode).toBe(200);
  return devices;
}

async function tenantOf(username: string) {
  return (await h.db.selectFrom('users').select('tenant_id').where('username', '=', username).executeTakeFirstOrThrow())
    .tenant_id;
}

let orderSeq = 0;
async function workOrder(tenantId: number, v: Record<string, unknown> = {}) {
  const row = await h.db
    .insertInto('work_orders')
    .values({
      order_no: `WO${process.pid}${++orderSeq}`,
      tenant_id: tenantId,
      type: 'device',
      priority: 'normal',
      title: `Order ${orderSeq}`,
      response_due_at: ahead(DAY),
      resolve_due_at: ahead(3 * DAY),
      ...v,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function printJobs(tenantId: number, deviceId: number, n: number, createdAt?: Date, state = 'printed') {
  for (let i = 0; i < n; i++)
    await h.db
      .insertInto('print_jobs')
      .values({
        tenant_id: tenantId,
        device_id: deviceId,
        origin_id: randomUUID(),
        format: 'escpos',
        columns: 48,
        content: 'hello',
        preview: 'hello',
        payload: Buffer.from('hello'),
        expire_at: ahead(DAY),
        state: state as 'printed',
        ...(createdAt ? { created_at: createdAt } : {}),
      })
      .execute();
}

const summaryOf = async (token: string) => {
  const res = await get('/workbench/summary', token);
  expect(res.statusCode).toBe(200);
  return res.body_.data as WorkbenchSummary;
};
const section = (s: WorkbenchSummary, key: WorkbenchSection['key']) => s.sections.find((x) => x.key === key);
const keys = (s: WorkbenchSummary) => s.sections.map((x) => x.key).sort();

describe('workbench', () => {
  let a: { token: string; username: string };
  let tenant: number;
  let d: Array<{ id: number; sn: string; iccid: string }>;
  let other: { token: string; username: string };
  let otherTenant: number;
  const wo: Record<string, number> = {};
  beforeAll(async () => {
    a = await registerCustomer(h);
    other = await registerCustomer(h);
    tenant = await tenantOf(a.username);
    otherTenant = await tenantOf(other.username);
    d = await boundDevices(a.token, 4);
    await boundDevices(other.token, 1);
    const set = (i: number, v: Record<string, unknown>) =>
      h.db
        .updateTable('devices')
        .set({ heartbeat_s: 86400, ...v })
        .where('id', '=', d[i].id)
        .execute();
    await set(0, { status: 'online', last_seen_at: new Date(), name: 'Front desk' });
    await set(1, { status: 'offline', last_seen_at: ago(3600_000) });
    await set(2, { status: 'offline', last_seen_at: ago(DAY), paper: 'out' });
    await set(3, { status: 'online', last_seen_at: new Date(), paper: 'cover-open' });
    // every plan far from its end, then: one low (50 of 1000 MB left), one suspended, one expiring in 3 days
    await h.db
      .updateTable('sims')
      .set({ expires_at: ahead(300 * DAY) })
      .execute();
    await h.db.updateTable('sims').set({ plan_total_mb: 1000, used_mb: 950 }).where('iccid', '=', d[0].iccid).execute();
    await h.db.updateTable('sims').set({ state: 'suspended' }).where('iccid', '=', d[1].iccid).execute();
    await h.db
      .updateTable('sims')
      .set({ expires_at: ahead(3 * DAY) })
      .where('iccid', '=', d[2].iccid)
      .execute();

    const user = await h.db
      .selectFrom('users')
      .select('id')
      .where('username', '=', a.username)
      .executeTakeFirstOrThrow();
    wo.waiting = await workOrder(tenant, { state: 'waiting', user_id: user.id, last_staff_at: ago(60_000) });
    wo.unread = await workOrder(tenant, {
      state: 'processing',
      user_id: user.id,
      assignee_id: 1,
      first_response_at: ago(120_000),
      last_staff_at: ago(60_000),
      customer_read_at: ago(120_000),
    });
    // read already, closed, or another account's: not the customer's to do
    await workOrder(tenant, {
      state: 'processing',
      assignee_id: 1,
      first_response_at: ago(120_000),
      last_staff_at: ago(120_000),
      customer_read_at: ago(60_000),
    });
    await workOrder(tenant, { state: 'closed', last_staff_at: ago(60_000) });
    wo.overdue = await workOrder(otherTenant, {
      state: 'submitted',
      priority: 'urgent',
      title: 'Printer on fire',
      response_due_at: ago(60_000),
    });
  });

  it('shows a customer its own work, one click from the filtered page', async () => {
    const s = await summaryOf(a.token);
    expect(s.role).toBe('customer');
    expect(keys(s)).toEqual(
      [
        'deviceFault',
        'deviceOffline',
        'notices',
        'simExpiring',
        'simLow',
        'workOrderUnread',
        'workOrderWaiting',
      ].sort(),
    );
    const offline = section(s, 'deviceOffline')!;
    expect(offline.count).toBe(2);
    expect(offline.link).toBe('/device/index?status=offline');
    // the one that went offline last comes first, and opens its device
    expect(offline.items.map((i) => i.link)).toEqual([`/device/detail?id=${d[1].id}`, `/device/detail?id=${d[2].id}`]);
    const fault = section(s, 'deviceFault')!;
    expect(fault.count).toBe(2);
    expect(fault.items.map((i) => i.tag).sort()).toEqual(['cover-open', 'out']);
    expect(fault.link).toMatch(/^\/device\/index\?paper=(out|cover-open)$/);

    const low = section(s, 'simLow')!;
    expect(low.count).toBe(2);
    expect(low.link).toBe('/flowRate/flowRateSearch?state=low,exhausted,suspended');
    expect(low.items.map((i) => [i.id, i.tag])).toEqual(
      expect.arrayContaining([
        [d[0].iccid, 'low'],
        [d[1].iccid, 'suspended'],
      ]),
    );
    expect(low.items.find((i) => i.id === d[0].iccid)!.subtitle).toBe('Front desk');
    const expiring = section(s, 'simExpiring')!;
    expect(expiring.count).toBe(1);
    expect(expiring.link).toBe('/flowRate/flowRateSearch?expiringDays=7');
    expect(expiring.items[0].link).toBe(`/flowRate/flowRateSearch?keyword=${d[2].iccid}`);

    const waiting = section(s, 'workOrderWaiting')!;
    expect(waiting.count).toBe(1);
    expect(waiting.link).toBe('/workOrder/workOrderIndex?state=waiting');
    expect(waiting.items[0].link).toBe(`/workOrder/detail?id=${wo.waiting}`);
    const unread = section(s, 'workOrderUnread')!;
    expect(unread.count).toBe(2); // the waiting one has an unread staff question too
    expect(unread.items.map((i) => Number(i.id)).sort()).toEqual([wo.waiting, wo.unread].sort());
    expect(unread.link).toBe('/workOrder/workOrderIndex?unread=true');
  });

  it("counts match the rows: another account's devices, SIMs and orders never show", async () => {
    const s = await summaryOf(other.token);
    expect(section(s, 'deviceOffline')!.count).toBe(1); // its own fresh device, never connected
    expect(section(s, 'deviceFault')!.count).toBe(0);
    expect(section(s, 'simLow')!.count).toBe(0);
    expect(section(s, 'workOrderWaiting')!.count).toBe(0);
    expect(section(s, 'workOrderUnread')!.count).toBe(0);
    const ids = s.sections.flatMap((x) => x.items.map((i) => i.id));
    for (const dv of d) expect(ids).not.toContain(String(dv.id));
  });

  it("counts the live announcements of the user's audience it has not opened, and forgets one once opened", async () => {
    const before = section(await summaryOf(a.token), 'notices')!.count;
    const [fresh] = await h.db
      .insertInto('notices')
      .values([
        { title: 'Maintenance tonight', body_html: '<p>x</p>', published_at: ago(60_000) },
        { title: 'future', body_html: '<p>x</p>', published_at: ahead(DAY) },
        { title: 'ended', body_html: '<p>x</p>', published_at: ago(2 * DAY), ends_at: ago(DAY) },
        { title: 'for enterprises', body_html: '<p>x</p>', published_at: ago(60_000), audience: 'enterprise' },
        { title: 'a draft', body_html: '<p>x</p>', published_at: ago(60_000), state: 'draft' },
      ])
      .returning('id')
      .execute();
    const notices = section(await summaryOf(a.token), 'notices')!;
    expect(notices.count).toBe(before + 1);
    expect(notices.items[0]).toMatchObject({ title: 'Maintenance tonight', link: `/notice/detail?id=${fresh.id}` });
    expect(notices.items.map((i) => i.title)).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/future|ended|for enterprises|a draft/)]),
    );
    const opened = await h.call({ method: 'GET', url: `/apiAdmin/notice/detail?id=${fresh.id}`, token: a.token });
    expect(opened.statusCode).toBe(200);
    const after = section(await summaryOf(a.token), 'notices')!;
    expect(after.count).toBe(before);
    expect(after.items.map((i) => i.title)).not.toContain('Maintenance tonight');
  });

  it('leaves out the sections a sub-account has no permission for', async () => {
    const devicesOnly = await subAccountWith(h, tenant, [PERMISSIONS.deviceView]);
    const s = await summaryOf(devicesOnly);
    expect(keys(s)).toEqual(['deviceFault', 'deviceOffline', 'notices']);
    expect(section(s, 'deviceOffline')!.count).toBe(2);
    const nothing = await subAccountWith(h, tenant, []);
    expect(keys(await summaryOf(nothing))).toEqual(['notices']);
    const sims = await subAccountWith(h, tenant, [PERMISSIONS.flowRateView, PERMISSIONS.workOrderView]);
    expect(keys(await summaryOf(sims))).toEqual([
      'notices',
      'simExpiring',
      'simLow',
      'workOrderUnread',
      'workOrderWaiting',
    ]);
  });

  it("keeps to a sub-account's data scope", async () => {
    const token = await subAccountWith(h, tenant, [PERMISSIONS.deviceView, PERMISSIONS.workOrderView]);
    const username = (
      await h.db.selectFrom('users').select('username').orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow()
    ).username;
    const sub = await h.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow();
    await h.db
      .updateTable('roles')
      .set({ data_scope: 'own' })
      .where('code', '=', username)
      .where('tenant_id', '=', tenant)
      .execute();
    await h.db.updateTable('devices').set({ owner_id: sub.id }).where('id', '=', d[1].id).execute();
    const mine = await workOrder(tenant, { state: 'waiting', user_id: sub.id });
    const s = await summaryOf(token);
    expect(section(s, 'deviceOffline')!.items.map((i) => i.id)).toEqual([String(d[1].id)]);
    expect(section(s, 'deviceFault')!.count).toBe(0);
    expect(section(s, 'workOrderWaiting')!.items.map((i) => i.id)).toEqual([String(mine)]);
    await h.db.updateTable('work_orders').set({ state: 'closed' }).where('id', '=', mine).execute();
  });

  it("shows staff every account's queues", async () => {
    // an identity waiting for review, and an order paid but never fulfilled
    await h.db
      .insertInto('identity_submissions')
      .values({ tenant_id: otherTenant, user_id: 1, kind: 'enterprise', company_name: 'Acme Ltd', status: 2 })
      .execute();
    await h.db
      .insertInto('orders')
      .values({
        tenant_id: tenant,
        order_no: `ORD${process.pid}`,
        client_request_id: randomUUID(),
        total_fen: 1000,
        state: 'paid',
        paid_at: ago(3600_000),
        expires_at: ago(3000_000),
      })
      .execute();
    const s = await summaryOf(staff);
    expect(s.role).toBe('staff');
    expect(keys(s)).toEqual(['identityWaiting', 'refundPending', 'workOrderOverdue', 'workOrderUnassigned']);
    const identity = section(s, 'identityWaiting')!;
    expect(identity.count).toBe(1);
    expect(identity.items[0]).toMatchObject({ title: 'Acme Ltd', tag: 'enterprise', link: '/system/identity' });
    // open and nobody's: the waiting order and the overdue one (the others are assigned or closed)
    const unassigned = section(s, 'workOrderUnassigned')!;
    expect(unassigned.count).toBe(2);
    expect(unassigned.items[0].id).toBe(String(wo.overdue)); // its first response falls due first
    expect(unassigned.link).toBe('/workOrder/workOrderIndex?assignee=none&state=submitted,processing,waiting');
    const overdue = section(s, 'workOrderOverdue')!;
    expect(overdue.count).toBe(1);
    expect(overdue.items[0]).toMatchObject({ title: 'Printer on fire', tag: 'urgent' });
    expect(overdue.link).toBe('/workOrder/workOrderIndex?overdue=true');
    const refunds = section(s, 'refundPending')!;
    expect(refunds.count).toBe(1);
    expect(refunds.items[0].title).toBe(`ORD${process.pid}`);
    expect(refunds.link).toBe('/flowRate/flowRateLog?state=paid');

    const handler = await subAccountWith(h, platformTenant, [PERMISSIONS.workOrderHandle]);
    const hs = await summaryOf(handler);
    expect(keys(hs)).toEqual(['workOrderOverdue', 'workOrderUnassigned']);
    expect(section(hs, 'workOrderOverdue')!.count).toBe(1);
  });

  it('answers 401 without a session', async () => {
    const res = await h.call({ method: 'GET', url: '/apiAdmin/workbench/summary' });
    expect(res.statusCode).toBe(401);
  });
});

describe('dashboard target and project widgets', () => {
  let a: { token: string; username: string };
  let tenant: number;
  let d: Array<{ id: number; sn: string }>;
  beforeAll(async () => {
    a = await registerCustomer(h);
    tenant = await tenantOf(a.username);
    d = await boundDevices(a.token, 3);
    await h.db
      .updateTable('devices')
      .set({ status: 'online', heartbeat_s: 86400, last_seen_at: new Date() })
      .where('id', '=', d[0].id)
      .execute();
    const east = (await post('/device/group/add', a.token, { name: 'East' })).body_.data.id;
    const eastSub = (await post('/device/group/add', a.token, { name: 'East kitchen', parentId: east })).body_.data.id;
    const west = (await post('/device/group/add', a.token, { name: 'West' })).body_.data.id;
    await post('/device/group/add', a.token, { name: 'Empty' });
    await post('/device/move', a.token, { ids: [d[0].id], groupId: eastSub });
    await post('/device/move', a.token, { ids: [d[1].id], groupId: west });
    await printJobs(tenant, d[0].id, 3);
    await printJobs(tenant, d[0].id, 1, undefined, 'failed');
    await printJobs(tenant, d[1].id, 1);
    // last year's job is not this month's
    await printJobs(tenant, d[1].id, 2, new Date('2000-01-15T00:00:00Z'));
  });

  const overview = async (token: string) => {
    const res = await get('/dashboard/overview', token);
    expect(res.statusCode).toBe(200);
    return res.body_.data;
  };

  it("counts this month's print jobs against the target the main account sets", async () => {
    const o = await overview(a.token);
    expect(o.target).toMatchObject({ jobs: 5, printed: 4, target: null, canEdit: true });
    expect(o.target.month).toMatch(/^\d{4}-\d{2}$/);

    expect((await post('/dashboard/target', a.token, { monthlyJobs: 200 })).statusCode).toBe(200);
    expect((await overview(a.token)).target.target).toBe(200);
    const log = await h.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'dashboard.target')
      .where('tenant_id', '=', tenant)
      .executeTakeFirstOrThrow();
    expect((log.details as { changes: unknown }).changes).toEqual({ monthlyJobs: { before: null, after: 200 } });

    expect((await post('/dashboard/target', a.token, { monthlyJobs: 150 })).statusCode).toBe(200);
    expect((await overview(a.token)).target.target).toBe(150);
  });

  it('refuses a bad target with 400 naming the field, and changes nothing', async () => {
    await post('/dashboard/target', a.token, { monthlyJobs: 150 });
    for (const body of [
      { monthlyJobs: 0 },
      { monthlyJobs: -5 },
      { monthlyJobs: 1.5 },
      { monthlyJobs: 'many' },
      { monthlyJobs: 1e12 },
      {},
      { monthlyJobs: 10, extra: 1 },
    ]) {
      const res = await post('/dashboard/target', a.token, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.body_.data.fields)).toMatch(/monthlyJobs|extra/);
    }
    expect((await overview(a.token)).target.target).toBe(150);
  });

  it('clears the target with null', async () => {
    expect((await post('/dashboard/target', a.token, { monthlyJobs: null })).statusCode).toBe(200);
    expect((await overview(a.token)).target.target).toBeNull();
  });

  it('lets only the main account set it; without print:view the widget is absent', async () => {
    const viewer = await subAccountWith(h, tenant, [PERMISSIONS.deviceView, PERMISSIONS.printView]);
    const o = await overview(viewer);
    expect(o.target).toMatchObject({ jobs: 5, canEdit: false });
    const refused = await post('/dashboard/target', viewer, { monthlyJobs: 10 });
    expect(refused.statusCode).toBe(403);
    const devicesOnly = await subAccountWith(h, tenant, [PERMISSIONS.deviceView]);
    expect((await overview(devicesOnly)).target).toBeNull();
    expect((await post('/dashboard/target', devicesOnly, { monthlyJobs: 10 })).statusCode).toBe(403);
    expect((await overview(a.token)).target.target).toBeNull();
  });

  it("lists the account's top-level groups by this month's jobs with their devices", async () => {
    const o = await overview(a.token);
    expect(o.projects).toEqual([
      { id: expect.any(Number), name: 'East', devices: 1, online: 1, jobsMonth: 4 },
      { id: expect.any(Number), name: 'West', devices: 1, online: 0, jobsMonth: 1 },
    ]);
    // another account sees none of them
    const b = await registerCustomer(h);
    expect((await overview(b.token)).projects).toEqual([]);
  });
});
