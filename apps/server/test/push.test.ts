import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleet, type Fleet } from '../../device-sim/src/fleet.ts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { createHarness, multipart, uploadImage, type Harness } from './harness.ts';
import { customer, devicesOf, openEvents, subAccountWith, waitUntil, type Customer } from './device-helpers.ts';

/**
 * Push tasks and push query (issue 16) against real PostgreSQL, the embedded broker and simulated devices: every
 * refusal, delivery to online devices, offline devices receiving on reconnect, expiry, a scheduled push started at
 * its time, retry, cancel, counts, clicks, and tenant isolation.
 */
let h: Harness;
let A: Customer;
let B: Customer;
let fleet: Fleet;
let baseUrl: string;
const specs = makeSpecs(6, { seed: 1616, prefix: 'PSH' });
const sns = specs.map((s) => s.sn);
let ids: Map<string, number>;
let groupId: number;
let childGroupId: number;
let bDeviceId: number;
let bGroupId: number;

const inHour = () => new Date(Date.now() + 3600_000).toISOString();
const create = (token: string, payload: Record<string, unknown>) =>
  h.call({ method: 'POST', url: '/apiAdmin/push/create', token, payload });
const base = (targets: Record<string, unknown>) => ({
  kind: 'text',
  title: 'Hello',
  body: 'Shop opens at 9',
  targets,
  expireAt: inHour(),
});
const detail = async (id: number, token = A.token) =>
  (await h.call({ method: 'GET', url: `/apiAdmin/push/detail?id=${id}`, token })).body_.data;
const field = (res: { body_: { data: { fields?: Array<{ field: string }>; field?: string } } }) =>
  res.body_.data?.fields?.[0]?.field;

beforeAll(async () => {
  h = await createHarness({
    SWEEP_INTERVAL_MS: '300',
    LAST_SEEN_FLUSH_MS: '200',
    PUSH_TICK_MS: '200',
    PUSH_EVENT_MS: '100',
  });
  A = await customer(h);
  B = await customer(h);
  ids = await devicesOf(h, A.tenantId, specs);
  const g = await h.db
    .insertInto('device_groups')
    .values({ tenant_id: A.tenantId, name: 'Hall' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const c = await h.db
    .insertInto('device_groups')
    .values({ tenant_id: A.tenantId, name: 'Hall / kiosks', parent_id: g.id })
    .returning('id')
    .executeTakeFirstOrThrow();
  groupId = Number(g.id);
  childGroupId = Number(c.id);
  // the group "Hall" holds PSH 0, 1 and (through its sub-group) 2, 3
  await h.db.updateTable('devices').set({ group_id: groupId }).where('sn', 'in', sns.slice(0, 2)).execute();
  await h.db.updateTable('devices').set({ group_id: childGroupId }).where('sn', 'in', sns.slice(2, 4)).execute();
  const bIds = await devicesOf(h, B.tenantId, makeSpecs(1, { seed: 1617, prefix: 'PSB' }));
  bDeviceId = [...bIds.values()][0];
  const bg = await h.db
    .insertInto('device_groups')
    .values({ tenant_id: B.tenantId, name: 'B hall' })
    .returning('id')
    .executeTakeFirstOrThrow();
  bGroupId = Number(bg.id);
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const a = h.app.server.address();
  baseUrl = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  fleet = await createFleet({
    url: h.app.gateway.deviceUrl,
    specs,
    seed: 1616,
    credential: 'timed',
    randomFaults: false,
    start: false,
  });
  // PSH 0, 1, 4 online; 2, 3 (in the sub-group) and 5 offline
  await Promise.all([0, 1, 4].map((i) => fleet.powerOn(sns[i])));
}, 120_000);
afterAll(async () => {
  await fleet?.stop();
  await h?.close();
});

describe('refusals: 400 naming the field, or 404 for another account; nothing sent', () => {
  it('refuses bad input', async () => {
    const before = await h.db
      .selectFrom('pushes')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const dev = ids.get(sns[0])!;
    const cases: Array<[Record<string, unknown>, string]> = [
      [base({}), 'targets'],
      [base({ deviceIds: [] }), 'targets'],
      [{ ...base({ deviceIds: [dev] }), title: 'x'.repeat(101) }, 'title'],
      [{ ...base({ deviceIds: [dev] }), title: '   ' }, 'title'],
      [{ ...base({ deviceIds: [dev] }), body: 'y'.repeat(2001) }, 'body'],
      [{ ...base({ deviceIds: [dev] }), kind: 'link', link: 'ftp://example.com/a' }, 'link'],
      [{ ...base({ deviceIds: [dev] }), kind: 'link', link: 'javascript:alert(1)' }, 'link'],
      [{ ...base({ deviceIds: [dev] }), kind: 'link' }, 'link'],
      [{ ...base({ deviceIds: [dev] }), kind: 'image' }, 'imageKey'],
      [{ ...base({ deviceIds: [dev] }), kind: 'image', imageKey: 'no/such/key.png' }, 'imageKey'],
      [{ ...base({ deviceIds: [dev] }), kind: 'notice' }, 'noticeSeconds'],
      [{ ...base({ deviceIds: [dev] }), kind: 'notice', noticeSeconds: 0 }, 'noticeSeconds'],
      [{ ...base({ deviceIds: [dev] }), expireAt: new Date(Date.now() - 1000).toISOString() }, 'expireAt'],
      [
        {
          ...base({ deviceIds: [dev] }),
          scheduledAt: new Date(Date.now() + 7200_000).toISOString(),
          expireAt: inHour(),
        },
        'expireAt',
      ],
      [{ ...base({ deviceIds: [dev] }), scheduledAt: new Date(Date.now() - 60_000).toISOString() }, 'scheduledAt'],
      [
        {
          ...base({ deviceIds: [dev] }),
          scheduledAt: new Date(Date.now() + 31 * 86_400_000).toISOString(),
          expireAt: new Date(Date.now() + 32 * 86_400_000).toISOString(),
        },
        'scheduledAt',
      ],
      [{ ...base({ deviceIds: [dev] }), expireAt: 'tomorrow' }, 'expireAt'],
    ];
    for (const [payload, name] of cases) {
      const res = await create(A.token, payload);
      expect(res.statusCode, `${name}: ${res.body}`).toBe(400);
      expect(field(res), JSON.stringify(payload).slice(0, 120)).toBe(name);
    }
    // an uploaded file that is not an image (its bytes say text) is no image for a push
    const t = await h.call({
      method: 'GET',
      url: '/apiAdmin/user/v1/user/getQnToken?bucket=attachment',
      token: A.token,
    });
    const up = await h.call({
      method: 'POST',
      url: '/apiAdmin/upload',
      ...multipart({ token: t.body_.data.token }, { name: 'notes.txt', bytes: Buffer.from('just text\n') }),
    });
    expect(up.statusCode, up.body).toBe(200);
    const notImage = await create(A.token, {
      ...base({ deviceIds: [dev] }),
      kind: 'image',
      imageKey: up.body_.data.key,
    });
    expect(notImage.statusCode).toBe(400);
    expect(field(notImage)).toBe('imageKey');
    expect(notImage.body_.msg).toMatch(/not an image/);
    // another account's device, group or image: 404 / refused, nothing sent
    for (const targets of [{ deviceIds: [dev, bDeviceId] }, { groupIds: [bGroupId] }]) {
      const res = await create(A.token, base(targets));
      expect(res.statusCode, res.body).toBe(404);
    }
    const bImage = await uploadImage(h, B.token);
    expect((await create(A.token, { ...base({ deviceIds: [dev] }), kind: 'image', imageKey: bImage })).statusCode).toBe(
      400,
    );
    const after = await h.db
      .selectFrom('pushes')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    const tasks = await h.db.selectFrom('device_tasks').select('id').where('type', '=', 'push_message').execute();
    expect(tasks).toHaveLength(0);
  });
});

describe('delivery', () => {
  it('a notice to a group: online devices display it now, offline ones on reconnect; clicks and counts', async () => {
    const events = await openEvents(h, baseUrl, A.token);
    const res = await create(A.token, {
      ...base({ groupIds: [groupId] }),
      kind: 'notice',
      title: 'Closing at 18:00',
      noticeSeconds: 30,
    });
    expect(res.statusCode, res.body).toBe(200);
    // the group and its sub-group: PSH 0–3
    expect(res.body_.data).toMatchObject({ state: 'sending', devices: 4 });
    const id = res.body_.data.id;
    await waitUntil('the online ones display it', async () => (await detail(id)).counts.displayed === 2);
    let d = await detail(id);
    expect(d.counts).toMatchObject({ displayed: 2, queued: 2, sent: 0, clicked: 0 });
    expect(d.total).toBe(4);
    expect(fleet.get(sns[0]).pushes.shown.map((s) => s.title)).toEqual(['Closing at 18:00']);
    expect(fleet.get(sns[0]).pushes.shown[0]).toMatchObject({ kind: 'notice', noticeSeconds: 30, pushId: id });
    expect(fleet.get(sns[2]).pushes.shown).toHaveLength(0);
    // the push's live events arrive, at most one per push per interval
    await events.waitFor('a push event', (e) => e.type === 'push' && e.data.id === id);
    // PSH 2 and 3 come online: they get it on their hello, nobody sends it again
    await Promise.all([2, 3].map((i) => fleet.powerOn(sns[i])));
    await waitUntil('every device displays it', async () => (await detail(id)).counts.displayed === 4);
    expect(fleet.get(sns[2]).pushes.shown.map((s) => s.title)).toEqual(['Closing at 18:00']);
    await waitUntil('the push is done', async () => (await detail(id)).state === 'done', 10_000);
    // a user taps it on PSH 1: clicked (once, however often the device says so)
    expect(await fleet.get(sns[1]).pushes.click(id)).toBe(true);
    await waitUntil('the click is counted', async () => (await detail(id)).counts.clicked === 1);
    d = await detail(id);
    expect(d.counts).toMatchObject({ displayed: 3, clicked: 1, queued: 0, expired: 0, failed: 0 });
    const rows = await h.call({
      method: 'GET',
      url: `/apiAdmin/push/deliveries?id=${id}&state=clicked`,
      token: A.token,
    });
    expect(rows.body_.data.total).toBe(1);
    expect(rows.body_.data.list[0]).toMatchObject({ sn: sns[1], state: 'clicked' });
    expect(rows.body_.data.list[0].clickedAt).toBeTruthy();
    expect(rows.body_.data.list[0].displayedAt).toBeTruthy();
    const all = await h.call({ method: 'GET', url: `/apiAdmin/push/deliveries?id=${id}`, token: A.token });
    expect(all.body_.data.list.map((r: { sn: string }) => r.sn)).toEqual(sns.slice(0, 4));
    // coalesced: far fewer push events than task changes (each device: sent, delivered, displayed…)
    const pushEvents = events.events.filter((e) => e.type === 'push' && e.data.id === id);
    expect(pushEvents.length).toBeGreaterThan(0);
    expect(pushEvents.length).toBeLessThan(4 * 3);
    events.close();
    // the list finds it by keyword, kind and state
    const list = await h.call({
      method: 'GET',
      url: '/apiAdmin/push/list?keyword=closing&kind=notice&state=done',
      token: A.token,
    });
    expect(list.body_.data.list.map((p: { id: number }) => p.id)).toEqual([id]);
    // the audit
    const log = await h.db
      .selectFrom('audit_log')
      .select('action')
      .where('resource', '=', 'push')
      .where('resource_id', '=', String(id))
      .execute();
    expect(log.map((l) => l.action)).toContain('push.create');
  });

  it('an image push carries a fresh signed link the device can read', async () => {
    const key = await uploadImage(h, A.token);
    const res = await create(A.token, { ...base({ deviceIds: [ids.get(sns[4])!] }), kind: 'image', imageKey: key });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.body_.data.id;
    await waitUntil('displayed', async () => (await detail(id)).counts.displayed === 1);
    const shown = fleet.get(sns[4]).pushes.shown.find((s) => s.pushId === id)!;
    expect(shown.imageUrl).toMatch(/^http:\/\/.+\/apiAdmin\/objects\/.+sig=/);
    const img = await fetch(shown.imageUrl!);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
  });

  it('an offline device past the expiry is expired; retry with a new expiry reaches it on reconnect', async () => {
    const res = await create(A.token, {
      ...base({ deviceIds: [ids.get(sns[5])!, ids.get(sns[4])!] }),
      kind: 'link',
      link: 'https://example.com/menu',
      expireAt: new Date(Date.now() + 1500).toISOString(),
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.body_.data.id;
    await waitUntil('expired', async () => (await detail(id)).counts.expired === 1, 10_000);
    expect((await detail(id)).counts).toMatchObject({ displayed: 1, expired: 1 });
    await waitUntil('done', async () => (await detail(id)).state === 'done', 10_000);
    // without a new expiry the push stays expired
    const stale = await h.call({ method: 'POST', url: '/apiAdmin/push/retry', token: A.token, payload: { id } });
    expect(stale.statusCode).toBe(400);
    const again = await h.call({
      method: 'POST',
      url: '/apiAdmin/push/retry',
      token: A.token,
      payload: { id, expireAt: inHour() },
    });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.body_.data.retried).toBe(1);
    expect((await detail(id)).counts).toMatchObject({ displayed: 1, queued: 1, expired: 0 });
    await fleet.powerOn(sns[5]);
    await waitUntil('displayed on reconnect', async () => (await detail(id)).counts.displayed === 2);
    expect(fleet.get(sns[5]).pushes.shown.map((s) => s.link)).toEqual(['https://example.com/menu']);
    // nothing left to retry
    const none = await h.call({ method: 'POST', url: '/apiAdmin/push/retry', token: A.token, payload: { id } });
    expect(none.statusCode).toBe(400);
  });

  it('a scheduled push starts at its time; a canceled one never does', async () => {
    const at = Date.now() + 1500;
    const res = await create(A.token, {
      ...base({ all: true }),
      title: 'Scheduled',
      scheduledAt: new Date(at).toISOString(),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body_.data.state).toBe('scheduled');
    const id = res.body_.data.id;
    const canceled = await create(A.token, {
      ...base({ all: true }),
      title: 'Never',
      scheduledAt: new Date(at).toISOString(),
    });
    const cid = canceled.body_.data.id;
    const c = await h.call({ method: 'POST', url: '/apiAdmin/push/cancel', token: A.token, payload: { id: cid } });
    expect(c.statusCode, c.body).toBe(200);
    expect(c.body_.data.state).toBe('canceled');
    expect((await detail(id)).total).toBe(0);
    await waitUntil('every device displays it', async () => (await detail(id)).counts.displayed === 6, 15_000);
    const d = await detail(id);
    expect(new Date(d.startedAt).getTime()).toBeGreaterThanOrEqual(at - 50);
    expect((await detail(cid)).state).toBe('canceled');
    expect((await detail(cid)).total).toBe(0);
    expect(fleet.devices.some((dev) => dev.pushes.shown.some((s) => s.title === 'Never'))).toBe(false);
    // a push under way or done cannot be canceled
    const late = await h.call({ method: 'POST', url: '/apiAdmin/push/cancel', token: A.token, payload: { id } });
    expect(late.statusCode).toBe(400);
  });

  it('a sub-account reaches only the devices of its data scope; push:view alone cannot send', async () => {
    const token = await subAccountWith(h, A.tenantId, ['push:view', 'push:edit']);
    const sub = await h.db
      .selectFrom('users')
      .select('id')
      .where('tenant_id', '=', A.tenantId)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    await h.db
      .updateTable('roles')
      .set({ data_scope: 'own' })
      .where('tenant_id', '=', A.tenantId)
      .where('code', 'like', 'sub_%')
      .execute();
    // it owns PSH 4 only
    await h.db.updateTable('devices').set({ owner_id: sub.id }).where('sn', '=', sns[4]).execute();
    const outside = await create(token, base({ deviceIds: [ids.get(sns[0])!] }));
    expect(outside.statusCode, outside.body).toBe(404);
    const fleetWide = await create(token, { ...base({ all: true }), title: 'Own scope' });
    expect(fleetWide.statusCode, fleetWide.body).toBe(200);
    expect(fleetWide.body_.data.devices).toBe(1);
    // it sees its own push; of the others only what its devices got
    const d = await detail(fleetWide.body_.data.id, token);
    expect(d.total).toBe(1);
    const viewer = await subAccountWith(h, A.tenantId, ['push:view']);
    const denied = await create(viewer, base({ deviceIds: [ids.get(sns[4])!] }));
    expect(denied.statusCode).toBe(403);
  });

  it('another account sees none of it: 404', async () => {
    const list = await h.call({ method: 'GET', url: '/apiAdmin/push/list', token: A.token });
    const id = list.body_.data.list[0].id;
    for (const url of [`/apiAdmin/push/detail?id=${id}`, `/apiAdmin/push/deliveries?id=${id}`])
      expect((await h.call({ method: 'GET', url, token: B.token })).statusCode).toBe(404);
    for (const url of ['/apiAdmin/push/retry', '/apiAdmin/push/cancel'])
      expect((await h.call({ method: 'POST', url, token: B.token, payload: { id } })).statusCode).toBe(404);
    const bl = await h.call({ method: 'GET', url: '/apiAdmin/push/list', token: B.token });
    expect(bl.body_.data.total).toBe(0);
  });
});
