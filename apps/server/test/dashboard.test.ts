import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, createHarness, multipart, registerCustomer, type Harness } from './harness.ts';

let h: Harness;
let staff: string;
beforeAll(async () => {
  h = await createHarness();
  staff = (await h.login('admin', ADMIN_PASSWORD)).token;
  await post('/system/deviceModel/add', staff, { code: 'P80', name: 'Printer 80', kind: 'printer', paperWidthMm: 80 });
});
afterAll(() => h.close());

const get = (url: string, token: string) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });
const post = (url: string, token: string, payload: unknown) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload: payload as Record<string, unknown> });

const MIN = 60_000;
const HOUR = 60 * MIN;
const ago = (ms: number) => new Date(Date.now() - ms);
/** The local date (YYYY-MM-DD) of an instant in Asia/Shanghai, the dashboard's default zone. */
const localDate = (d: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai' }).format(d);

let seq = 0;
async function boundDevices(token: string, n: number) {
  const rows = Array.from({ length: n }, (_, i) => `DASH${process.pid % 1000}-${++seq}-${i},P80`);
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

/** Index of the bucket (points start at `at`, oldest first) holding an instant. */
const bucketOf = (points: Array<{ at: string }>, t: Date) => {
  let i = -1;
  points.forEach((p, j) => Date.parse(p.at) <= t.getTime() && (i = j));
  return i;
};

describe('dashboard', () => {
  let a: { token: string; username: string };
  let tenant: number;
  let d: Array<{ id: number; sn: string; iccid: string }>;
  let taskTimes: Date[];
  let groups: { east: number; eastSub: number; west: number };
  beforeAll(async () => {
    a = await registerCustomer(h);
    d = await boundDevices(a.token, 5);
    tenant = (await h.db.selectFrom('devices').select('tenant_id').where('id', '=', d[0].id).executeTakeFirstOrThrow())
      .tenant_id!;
    // a day-long heartbeat keeps the gateway's presence sweep away from these hand-made states
    const set = (i: number, v: Record<string, unknown>) =>
      h.db
        .updateTable('devices')
        .set({ heartbeat_s: 86400, ...v })
        .where('id', '=', d[i].id)
        .execute();
    await set(0, { status: 'online', last_seen_at: new Date(), firmware: '2.0.1', province: '上海', name: 'Zero' });
    await set(1, {
      status: 'offline',
      last_seen_at: ago(48 * HOUR),
      firmware: '2.0.1',
      province: '上海',
      paper: 'out',
    });
    await set(2, { status: 'online', last_seen_at: new Date(), firmware: '1.9.0', province: '北京' });
    await set(3, { status: 'offline', last_seen_at: ago(HOUR) });
    await set(4, { status: 'offline', last_seen_at: null, bound_at: ago(72 * HOUR) });
    // suspended by the carrier (the one state set by hand), and low from the data left (50 of 1000 MB: under 10 %)
    await h.db.updateTable('sims').set({ state: 'suspended' }).where('iccid', '=', d[2].iccid).execute();
    await h.db.updateTable('sims').set({ plan_total_mb: 1000, used_mb: 950 }).where('iccid', '=', d[3].iccid).execute();

    const east = (await post('/device/group/add', a.token, { name: 'East' })).body_.data.id;
    const eastSub = (await post('/device/group/add', a.token, { name: 'East kitchen', parentId: east })).body_.data.id;
    const west = (await post('/device/group/add', a.token, { name: 'West' })).body_.data.id;
    groups = { east, eastSub, west };
    await post('/device/move', a.token, { ids: [d[0].id], groupId: eastSub });
    await post('/device/move', a.token, { ids: [d[1].id], groupId: east });
    await post('/device/move', a.token, { ids: [d[2].id], groupId: west });

    // tasks: three for device 0 and one for device 2 a minute ago, one for device 1 three days ago (all finished)
    taskTimes = [ago(MIN), ago(MIN), ago(MIN), ago(MIN), ago(72 * HOUR)];
    const owners = [0, 0, 0, 2, 1];
    for (const [i, at] of taskTimes.entries()) {
      await h.db
        .insertInto('device_tasks')
        .values({
          tenant_id: tenant,
          device_id: d[owners[i]].id,
          type: 'reboot',
          params: '{}',
          state: 'succeeded',
          created_at: at,
          expire_at: new Date(Date.now() + HOUR),
          batch_id: null,
          created_by: null,
          sent_at: null,
          delivered_at: null,
          started_at: null,
          finished_at: at,
        })
        .execute();
    }

    // SIM used counters this month: device 0 used 50 MB; device 2's counter was reset, 20 MB since
    const sample = (i: number, at: Date, used: number, tenantId: number | null = tenant) =>
      h.db
        .insertInto('device_telemetry')
        .values({
          device_id: d[i].id,
          tenant_id: tenantId,
          at,
          used_mb: used,
          battery: 50,
          signal: 50,
          paper: 'ok',
          lat: null,
          lng: null,
        })
        .execute();
    await sample(0, ago(150_000), 0, null); // before this account held it: not counted
    await sample(0, ago(120_000), 100);
    await sample(0, ago(60_000), 150);
    await sample(2, ago(120_000), 500);
    await sample(2, ago(60_000), 20);
  });

  it('fills the top cards, provinces, versions and group ranking from the data', async () => {
    const res = await get('/dashboard/overview', a.token);
    expect(res.statusCode, res.body).toBe(200);
    const o = res.body_.data;
    expect(o.cards).toEqual({
      devices: 5,
      online: 2,
      tasksToday: taskTimes.filter((t) => localDate(t) === localDate(new Date())).length,
      dataUsedMonthMb: 70,
    });
    expect(o.provinces).toEqual([
      { province: '上海', total: 2, online: 1 },
      { province: '北京', total: 1, online: 1 },
    ]);
    expect(o.versions).toEqual([
      { firmware: '2.0.1', count: 2, online: 1 },
      { firmware: '', count: 2, online: 0 },
      { firmware: '1.9.0', count: 1, online: 1 },
    ]);
    expect(o.groupRanking).toEqual([
      { id: groups.east, name: 'East', devices: 2, online: 1 },
      { id: null, name: '', devices: 2, online: 0 },
      { id: groups.west, name: 'West', devices: 1, online: 1 },
    ]);
  });

  it('ranks devices by tasks and by data this month', async () => {
    const o = (await get('/dashboard/overview', a.token)).body_.data;
    const { rows } = await sql<{ start: Date }>`select date_trunc('month', now(), 'Asia/Shanghai') as start`.execute(
      h.db,
    );
    const oldInMonth = taskTimes[4] >= rows[0].start;
    expect(o.deviceRanking.byTasks).toEqual([
      { id: d[0].id, sn: d[0].sn, name: 'Zero', value: 3 },
      ...(oldInMonth ? [{ id: d[1].id, sn: d[1].sn, name: '', value: 1 }] : []),
      { id: d[2].id, sn: d[2].sn, name: '', value: 1 },
    ]);
    expect(o.deviceRanking.byData).toEqual([
      { id: d[0].id, sn: d[0].sn, name: 'Zero', value: 50 },
      { id: d[2].id, sn: d[2].sn, name: '', value: 20 },
    ]);
  });

  it('counts installs per local day and lists what needs attention', async () => {
    const o = (await get('/dashboard/overview', a.token)).body_.data;
    expect(o.installs).toHaveLength(30);
    expect(o.installs.at(-1)).toEqual({ date: localDate(new Date()), count: 4 });
    expect(o.installs.find((x: { date: string }) => x.date === localDate(ago(72 * HOUR)))).toEqual({
      date: localDate(ago(72 * HOUR)),
      count: 1,
    });
    expect(o.installs.reduce((s: number, x: { count: number }) => s + x.count, 0)).toBe(5);

    const ids = (l: { devices: Array<{ id: number }> }) => l.devices.map((x) => x.id);
    expect(o.remind.paper.count).toBe(1);
    expect(o.remind.paper.devices[0]).toMatchObject({ id: d[1].id, paper: 'out', status: 'offline' });
    // offline over 24 h: the never-seen device bound three days ago first, then the one seen two days ago
    expect(o.remind.offline.count).toBe(2);
    expect(ids(o.remind.offline)).toEqual([d[4].id, d[1].id]);
    // SIM low: marked low (nothing left), and 50 MB left of 1000
    expect(o.remind.simLow.count).toBe(2);
    expect(o.remind.simLow.devices).toEqual([
      expect.objectContaining({ id: d[2].id, simDataLeftMb: 0 }),
      expect.objectContaining({ id: d[3].id, simDataLeftMb: 50 }),
    ]);
  });

  it('replays the status history into online devices per hour, and counts tasks per bucket', async () => {
    const first = (await get('/dashboard/trend?unit=hour', a.token)).body_.data;
    expect(first.unit).toBe('hour');
    expect(first.points).toHaveLength(168);
    const B = Date.parse(first.points[100].at);
    const windowStart = Date.parse(first.points[0].at);
    const log = (i: number, status: 'online' | 'offline', at: number) =>
      h.db
        .insertInto('device_status_log')
        .values({ device_id: d[i].id, tenant_id: tenant, status, reason: 'test', at: new Date(at) })
        .execute();
    await log(4, 'online', windowStart - 24 * HOUR); // online when the window starts…
    await log(4, 'offline', B + 2 * HOUR + 10 * MIN); // …until two hours after B
    await log(3, 'online', B - 5 * HOUR); // and stays online
    await log(0, 'online', B + 10 * MIN);
    await log(0, 'offline', B + 50 * MIN);
    await log(1, 'online', B + 20 * MIN);
    await log(1, 'offline', B + 30 * MIN);
    await log(2, 'offline', B - 2 * HOUR); // no online at all
    // another account's history does not count
    const other = await registerCustomer(h);
    const [od] = await boundDevices(other.token, 1);
    const otherTenant = (
      await h.db.selectFrom('devices').select('tenant_id').where('id', '=', od.id).executeTakeFirstOrThrow()
    ).tenant_id;
    await h.db
      .insertInto('device_status_log')
      .values({ device_id: od.id, tenant_id: otherTenant, status: 'online', at: new Date(B) })
      .execute();

    const t = (await get('/dashboard/trend?unit=hour', a.token)).body_.data;
    expect(t.points[0].at).toBe(first.points[0].at);
    const online = t.points.map((p: { online: number }) => p.online);
    // the hour under way never shows fewer than the online card: devices 0 and 2 are online now (set without history)
    const expected = online.map((_: number, i: number) =>
      i < 95 ? 1 : i < 100 ? 2 : i === 100 ? 4 : i <= 102 ? 2 : i === 167 ? 2 : 1,
    );
    expect(online).toEqual(expected);

    const tasks = new Array(168).fill(0);
    for (const at of taskTimes) tasks[bucketOf(t.points, at)]++;
    expect(t.points.map((p: { tasks: number }) => p.tasks)).toEqual(tasks);

    // the daily trend of the overview: 7 local days with the same tasks
    const daily = (await get('/dashboard/overview', a.token)).body_.data.trend;
    expect(daily.unit).toBe('day');
    expect(daily.points).toHaveLength(7);
    const perDay = new Array(7).fill(0);
    for (const at of taskTimes) perDay[bucketOf(daily.points, at)]++;
    expect(daily.points.map((p: { tasks: number }) => p.tasks)).toEqual(perDay);
    expect(localDate(new Date(daily.points[6].at))).toBe(localDate(new Date()));
    expect(Math.max(...daily.points.map((p: { online: number }) => p.online))).toBe(4);
  });

  it("shows another account none of this account's data", async () => {
    const b = await registerCustomer(h);
    const o = (await get('/dashboard/overview', b.token)).body_.data;
    expect(o.cards).toEqual({ devices: 0, online: 0, tasksToday: 0, dataUsedMonthMb: 0 });
    expect(o.provinces).toEqual([]);
    expect(o.versions).toEqual([]);
    expect(o.groupRanking).toEqual([]);
    expect(o.deviceRanking).toEqual({ byTasks: [], byData: [] });
    expect(o.remind).toEqual({
      paper: { count: 0, devices: [] },
      offline: { count: 0, devices: [] },
      simLow: { count: 0, devices: [] },
    });
    expect(o.installs.every((x: { count: number }) => x.count === 0)).toBe(true);
    expect(o.trend.points.every((p: { online: number; tasks: number }) => p.online === 0 && p.tasks === 0)).toBe(true);
    expect(JSON.stringify(o)).not.toContain(d[0].sn);
  });

  it('takes the time zone from the caller and refuses bad queries naming the field', async () => {
    const utc = (await get('/dashboard/overview?tz=UTC', a.token)).body_.data;
    expect(utc.installs.at(-1).date).toBe(new Date().toISOString().slice(0, 10));
    expect(utc.trend.points[6].at).toBe(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
    for (const [q, field] of [
      ['tz=Mars/Olympus', 'tz'],
      ["tz=UTC';drop", 'tz'],
      ['unit=week', 'unit'],
      ['extra=1', 'extra'],
    ]) {
      const res = await get(`/dashboard/overview?${q}`, a.token);
      expect(res.statusCode, q).toBe(400);
      expect(res.body_.msg, q).toContain(field);
    }
    expect((await get('/dashboard/overview', '')).statusCode).toBe(401);
  });

  it('counts a device bound while already online from the binding on: the latest point equals the online card', async () => {
    const c = await registerCustomer(h);
    const reg = await h.call({
      method: 'POST',
      url: '/apiAdmin/system/deviceRegistry/import',
      token: staff,
      ...multipart({}, { name: 'd.csv', bytes: Buffer.from(`sn,model\nDASHON${process.pid % 1000}-${++seq},P80`) }),
    });
    const [dev] = reg.body_.data.devices as Array<{ id: number; sn: string; bindKey: string }>;
    // it powered on (and was logged online) before anyone owned it
    await h.db
      .updateTable('devices')
      .set({ status: 'online', last_seen_at: new Date(), heartbeat_s: 86400 })
      .where('id', '=', dev.id)
      .execute();
    await h.db
      .insertInto('device_status_log')
      .values({ device_id: dev.id, tenant_id: null, status: 'online', reason: 'hello' })
      .execute();
    expect((await post('/device/bind', c.token, { sn: dev.sn, bindKey: dev.bindKey })).statusCode).toBe(200);

    const owner = (
      await h.db.selectFrom('devices').select('tenant_id').where('id', '=', dev.id).executeTakeFirstOrThrow()
    ).tenant_id;
    const history = await h.db
      .selectFrom('device_status_log')
      .select(['status', 'reason'])
      .where('device_id', '=', dev.id)
      .where('tenant_id', '=', owner)
      .execute();
    expect(history).toEqual([{ status: 'online', reason: 'bound' }]);
    const o = (await get('/dashboard/overview', c.token)).body_.data;
    expect(o.cards.online).toBe(1);
    expect(o.trend.points.at(-1).online).toBe(1);
    expect((await get('/dashboard/trend?unit=hour', c.token)).body_.data.points.at(-1).online).toBe(1);

    // unbound while online, it goes offline in this account's history: the account's later hours do not count it
    expect((await post('/device/unbind', c.token, { id: dev.id })).statusCode).toBe(200);
    const after = await h.db
      .selectFrom('device_status_log')
      .select(['status', 'reason'])
      .where('device_id', '=', dev.id)
      .where('tenant_id', '=', owner)
      .orderBy('id')
      .execute();
    expect(after).toEqual([
      { status: 'online', reason: 'bound' },
      { status: 'offline', reason: 'unbound' },
    ]);
  });
});
