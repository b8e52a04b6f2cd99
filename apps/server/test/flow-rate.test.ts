import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { LiveEvent } from '@cpc/contracts';
import { ADMIN_PASSWORD, createHarness, multipart, registerCustomer, type Harness } from './harness.ts';
import { Presence } from '../src/plugins/mqtt/presence.ts';
import { sweepSims } from '../src/modules/flow-rate/index.ts';
import type { AuthUser } from '../src/plugins/auth.ts';

let h: Harness;
let staff: string;
let modelCode: string;
const published: Array<{ tenantId: number | null | undefined; event: LiveEvent }> = [];
const sink = {
  publish: (tenantId: number | null | undefined, event: LiveEvent) => published.push({ tenantId, event }),
};
let presence: Presence;

beforeAll(async () => {
  h = await createHarness();
  staff = (await h.login('admin', ADMIN_PASSWORD)).token;
  const m = await post('/system/deviceModel/add', staff, {
    code: 'S58',
    name: 'Receipt printer 58',
    kind: 'printer',
    paperWidthMm: 58,
    capabilities: ['print'],
  });
  modelCode = m.body_.data.code;
  presence = new Presence(h.db, sink, { heartbeatS: 30, telemetrySampleS: 60 });
});
afterAll(() => h.close());

const get = (url: string, token: string, headers: Record<string, string> = {}) =>
  h.call({ method: 'GET', url: `/apiAdmin${url}`, token, headers });
const post = (url: string, token: string, payload: unknown) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload: payload as Record<string, unknown> });

interface Made {
  id: number;
  sn: string;
  bindKey: string;
  iccid: string;
}
let seq = 0;
/** Devices made at the "factory" (each with its SIM) and bound to the customer. */
async function bound(token: string, n = 1): Promise<Made[]> {
  const prefix = `F${process.pid % 1000}R${String(++seq).padStart(3, '0')}`;
  const rows = Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(3, '0')},${modelCode}`);
  const res = await h.call({
    method: 'POST',
    url: '/apiAdmin/system/deviceRegistry/import',
    token: staff,
    ...multipart({}, { name: 'd.csv', bytes: Buffer.from(['sn,model', ...rows].join('\n')) }),
  });
  expect(res.statusCode, res.body).toBe(200);
  const list: Made[] = res.body_.data.devices;
  for (const d of list)
    expect((await post('/device/bind', token, { sn: d.sn, bindKey: d.bindKey })).statusCode).toBe(200);
  return list;
}
const plan = (iccid: string, values: { plan_total_mb?: number; used_mb?: number; expires_at?: Date | null }) =>
  h.db.updateTable('sims').set(values).where('iccid', '=', iccid).execute();
const list = async (token: string, query = '') => {
  const res = await get(`/flowRate/sim/list?${query.includes('pageSize') ? '' : 'pageSize=100'}${query}`, token);
  expect(res.statusCode, res.body).toBe(200);
  return res.body_.data as { list: Array<Record<string, any>>; total: number };
};
const usage = async (token: string, iccid: string, range = '30d') => {
  const res = await get(`/flowRate/sim/usage?iccid=${iccid}&range=${range}`, token);
  expect(res.statusCode, res.body).toBe(200);
  return res.body_.data as { unit: string; points: Array<{ date: string; txBytes: number; rxBytes: number }> };
};
const MB = 1024 * 1024;
const localDay = (offset = 0) => new Date(Date.now() + 8 * 3600_000 + offset * 86_400_000).toISOString().slice(0, 10);

/** One `traffic` report, rolled up at once (the gateway rolls up at its next flush, every LAST_SEEN_FLUSH_MS). */
const traffic = async (deviceId: number, m: Parameters<Presence['traffic']>[1]) => {
  await presence.traffic(deviceId, m);
  await presence.flushTraffic();
};

describe('the daily usage roll-up', () => {
  let c: Awaited<ReturnType<typeof registerCustomer>>;
  let d: Made[];
  beforeAll(async () => {
    c = await registerCustomer(h);
    d = await bound(c.token, 3);
  });

  it('adds the growth of the byte counters to one row per SIM and day; a smaller counter starts a new period', async () => {
    const [x] = d;
    // the first report is the baseline: what was counted before is not today's
    await traffic(x.id, { iccid: x.iccid, usedMb: 1, txBytes: 1000, rxBytes: 5000 });
    expect((await usage(c.token, x.iccid)).points.at(-1)).toEqual({ date: localDay(), txBytes: 0, rxBytes: 0 });
    await traffic(x.id, { iccid: x.iccid, usedMb: 2, txBytes: 3000, rxBytes: 9000 });
    await traffic(x.id, { iccid: x.iccid, usedMb: 2, txBytes: 3000, rxBytes: 9000 }); // nothing new
    await traffic(x.id, { iccid: x.iccid, usedMb: 3, txBytes: 4000, rxBytes: 12000 });
    expect((await usage(c.token, x.iccid)).points.at(-1)).toMatchObject({ txBytes: 3000, rxBytes: 7000 });
    // a new plan period: the counters start again from 0
    await traffic(x.id, { iccid: x.iccid, usedMb: 0.1, txBytes: 500, rxBytes: 700 });
    expect((await usage(c.token, x.iccid)).points.at(-1)).toMatchObject({ txBytes: 3500, rxBytes: 7700 });
    const rows = await h.db
      .selectFrom('sim_usage_daily')
      .innerJoin('sims', 'sims.id', 'sim_usage_daily.sim_id')
      .select(['sim_usage_daily.day', 'sim_usage_daily.tx_bytes'])
      .where('sims.iccid', '=', x.iccid)
      .execute();
    expect(rows).toHaveLength(1); // one row per day, not one per report
    const item = (await list(c.token, `&keyword=${x.iccid}`)).list[0];
    expect(item.usedMonthMb).toBe(Math.round(((3500 + 7700) / MB) * 100) / 100);
    expect(item.reportedAt).toBeTruthy();
  });

  it('never waits for a device row another transaction holds: its last-seen time goes with the next flush', async () => {
    const [x, y] = await bound(c.token, 2);
    const seen = async (id: number) =>
      (await h.db.selectFrom('devices').select('last_seen_at').where('id', '=', id).executeTakeFirstOrThrow())
        .last_seen_at;
    const before = { x: await seen(x.id), y: await seen(y.id) };
    presence.touch(x.id);
    presence.touch(y.id);
    // x's row is held (as the SIM roll-up's trigger holds the devices naming a card while it writes them)
    await h.db.transaction().execute(async (trx) => {
      await sql`SELECT 1 FROM devices WHERE id = ${x.id} FOR UPDATE`.execute(trx);
      const started = Date.now();
      await presence.flush();
      expect(Date.now() - started).toBeLessThan(1000); // not waited for
    });
    expect(await seen(y.id)).not.toEqual(before.y);
    expect(await seen(x.id)).toEqual(before.x);
    // released: the next flush writes it
    await presence.flush();
    expect(await seen(x.id)).not.toEqual(before.x);
  });

  it('rolls up the reports of a flush interval in one write, counting every growth and a new period in between', async () => {
    const [x, y] = await bound(c.token, 2);
    for (const [dev, base] of [
      [x, 1000],
      [y, 2000],
    ] as const)
      await traffic(dev.id, { iccid: dev.iccid, usedMb: 1, txBytes: base, rxBytes: base });
    const today = async (iccid: string) => (await usage(c.token, iccid)).points.at(-1);
    // reports between flushes wait: nothing is written yet
    await presence.traffic(x.id, { iccid: x.iccid, usedMb: 2, txBytes: 1500, rxBytes: 1600 });
    await presence.traffic(x.id, { iccid: x.iccid, usedMb: 3, txBytes: 1800, rxBytes: 2100 });
    await presence.traffic(y.id, { iccid: y.iccid, usedMb: 2, txBytes: 2700, rxBytes: 2900 });
    expect(await today(x.iccid)).toMatchObject({ txBytes: 0, rxBytes: 0 });
    // a new period between two flushes: what came before it is written first, nothing is lost
    await presence.traffic(x.id, { iccid: x.iccid, usedMb: 0.1, txBytes: 100, rxBytes: 200 });
    expect(await today(x.iccid)).toMatchObject({ txBytes: 800, rxBytes: 1100 });
    // last-seen times are written without the counters: those wait for the roll-up's own timer
    await presence.flush();
    expect(await today(x.iccid)).toMatchObject({ txBytes: 800, rxBytes: 1100 });
    expect(presence.pendingReports).toBe(2);
    published.length = 0;
    await presence.flushTraffic();
    expect(presence.pendingReports).toBe(0);
    // the consoles hear which SIMs changed once per roll-up, one event per account (coalesced)
    expect(published.filter((p) => p.event.type === 'sim').map((p) => p.event.data)).toEqual([
      { iccids: expect.arrayContaining([x.iccid, y.iccid]) },
    ]);
    expect(await today(x.iccid)).toMatchObject({ txBytes: 900, rxBytes: 1300 });
    expect(await today(y.iccid)).toMatchObject({ txBytes: 700, rxBytes: 900 });
  });

  it('writes a hello\u2019s counters at once, after a pending report they do not cover', async () => {
    const [w] = await bound(c.token, 1);
    const today = async () => (await usage(c.token, w.iccid)).points.at(-1);
    await traffic(w.id, { iccid: w.iccid, usedMb: 1, txBytes: 1000, rxBytes: 1000 });
    // pending, and covered by the hello's larger counters: the hello's growth is the sum of both
    await presence.traffic(w.id, { iccid: w.iccid, usedMb: 2, txBytes: 1500, rxBytes: 1500 });
    await presence.hello(w.id, { conn: 'c1', fw: '1.0', iccid: w.iccid, usedMb: 3, txBytes: 2000, rxBytes: 2500 });
    expect(await today()).toMatchObject({ txBytes: 1000, rxBytes: 1500 });
    // pending, then a hello of a new period: the pending growth is counted first, then the new period's
    await presence.traffic(w.id, { iccid: w.iccid, usedMb: 4, txBytes: 2500, rxBytes: 3000 });
    await presence.hello(w.id, { conn: 'c2', fw: '1.0', iccid: w.iccid, usedMb: 0.1, txBytes: 100, rxBytes: 100 });
    expect(await today()).toMatchObject({ txBytes: 1600, rxBytes: 2100 });
    await presence.flushTraffic();
    expect(await today()).toMatchObject({ txBytes: 1600, rxBytes: 2100 });
  });

  it('writes last-seen times whatever the roll-up does; a failed roll-up is logged and the next report recovers it', async () => {
    const [w] = await bound(c.token, 1);
    const errors: unknown[] = [];
    const p = new Presence(h.db, sink, { heartbeatS: 30, telemetrySampleS: 60, onRollupError: (e) => errors.push(e) });
    const today = async () => (await usage(c.token, w.iccid)).points.at(-1);
    await p.traffic(w.id, { iccid: w.iccid, usedMb: 1, txBytes: 100, rxBytes: 100 });
    await p.flushTraffic();
    // a report the database refuses (a counter beyond the column: any failure of the statement would do)
    await p.traffic(w.id, { iccid: w.iccid, usedMb: 1e11, txBytes: 150, rxBytes: 160 });
    p.touch(w.id);
    const before = new Date();
    expect(await p.flush()).toEqual([w.id]); // heard from, offline in the database: the gateway asks for a hello
    const row = await h.db
      .selectFrom('devices')
      .select('last_seen_at')
      .where('id', '=', w.id)
      .executeTakeFirstOrThrow();
    expect(row.last_seen_at!.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1000);
    await p.flushTraffic();
    expect(errors).toHaveLength(1);
    expect(p.pendingReports).toBe(0);
    expect(await today()).toMatchObject({ txBytes: 0, rxBytes: 0 });
    // the counters are cumulative: the next report adds the growth the failed one carried
    await p.traffic(w.id, { iccid: w.iccid, usedMb: 1.5, txBytes: 200, rxBytes: 300 });
    await p.flushTraffic();
    expect(await today()).toMatchObject({ txBytes: 100, rxBytes: 200 });
    expect(errors).toHaveLength(1);
  });

  it('counts the growth of usedMb as received bytes for a device without byte counters', async () => {
    const y = d[1];
    await traffic(y.id, { iccid: y.iccid, usedMb: 10 });
    await traffic(y.id, { iccid: y.iccid, usedMb: 12.5 });
    expect((await usage(c.token, y.iccid)).points.at(-1)).toMatchObject({ txBytes: 0, rxBytes: 2.5 * MB });
    // a hello carries the counters too
    await presence.hello(y.id, { conn: 'c1', fw: '1.0', iccid: y.iccid, usedMb: 13.5 });
    expect((await usage(c.token, y.iccid)).points.at(-1)).toMatchObject({ rxBytes: 3.5 * MB });
  });

  it('keeps the history with the ICCID when the card moves to another device', async () => {
    const [x, , z] = d;
    await traffic(z.id, { iccid: x.iccid, usedMb: 0.2, txBytes: 600, rxBytes: 900 });
    const item = (await list(c.token, `&keyword=${x.iccid}`)).list[0];
    expect(item.deviceSn).toBe(z.sn);
    expect((await usage(c.token, x.iccid)).points.at(-1)).toMatchObject({ txBytes: 3600, rxBytes: 7900 });
  });
});

describe('the traffic query', () => {
  let c: Awaited<ReturnType<typeof registerCustomer>>;
  let d: Made[];
  let groupId: number;
  beforeAll(async () => {
    c = await registerCustomer(h);
    d = await bound(c.token, 5);
    const day = 86_400_000;
    await plan(d[0].iccid, { plan_total_mb: 1000, used_mb: 100, expires_at: new Date(Date.now() + 200 * day) }); // active 90 %
    await plan(d[1].iccid, { plan_total_mb: 1000, used_mb: 960, expires_at: new Date(Date.now() + 3 * day) }); // low 4 %
    await plan(d[2].iccid, { plan_total_mb: 500, used_mb: 500, expires_at: new Date(Date.now() + 20 * day) }); // exhausted
    await plan(d[3].iccid, { plan_total_mb: 1000, used_mb: 10, expires_at: new Date(Date.now() - day) }); // expired
    await plan(d[4].iccid, { plan_total_mb: 0, used_mb: 5, expires_at: null }); // no plan: active
    await h.db
      .updateTable('sims')
      .set({ carrier: 'cmcc' })
      .where(
        'iccid',
        'in',
        d.map((x) => x.iccid),
      )
      .execute();
    await h.db.updateTable('sims').set({ carrier: 'cucc' }).where('iccid', '=', d[4].iccid).execute();
    await h.db.updateTable('devices').set({ name: 'Front desk' }).where('id', '=', d[2].id).execute();
    groupId = (await post('/device/group/add', c.token, { name: 'Shops' })).body_.data.id;
    expect((await post('/device/move', c.token, { ids: [d[0].id, d[1].id], groupId })).statusCode).toBe(200);
    // this month's use, for the usedMonth sort
    for (const [i, bytes] of [
      [0, 50 * MB],
      [1, 10 * MB],
      [2, 90 * MB],
    ] as const) {
      await sql`insert into sim_usage_daily (sim_id, day, tx_bytes, rx_bytes)
        select id, (now() at time zone 'Asia/Shanghai')::date, 0, ${bytes} from sims where iccid = ${d[i].iccid}`.execute(
        h.db,
      );
      await sql`update sims set month_start = date_trunc('month', now() at time zone 'Asia/Shanghai')::date, month_bytes = ${bytes}
        where iccid = ${d[i].iccid}`.execute(h.db);
    }
  });
  const idx = (l: { list: Array<Record<string, any>> }) => l.list.map((s) => d.findIndex((x) => x.iccid === s.iccid));

  it('lists every SIM of the account with its state, plan, left and expiry', async () => {
    const l = await list(c.token);
    expect(l.total).toBe(5);
    const by = Object.fromEntries(l.list.map((s) => [s.iccid, s]));
    expect(by[d[0].iccid]).toMatchObject({ state: 'active', planMb: 1000, usedMb: 100, leftMb: 900, leftPercent: 90 });
    expect(by[d[0].iccid]).toMatchObject({ deviceSn: d[0].sn, groupName: 'Shops', usedMonthMb: 50 });
    expect(by[d[1].iccid]).toMatchObject({ state: 'low', leftMb: 40, leftPercent: 4 });
    expect(by[d[2].iccid]).toMatchObject({ state: 'exhausted', leftMb: 0, leftPercent: 0 });
    expect(by[d[3].iccid]).toMatchObject({ state: 'expired' });
    expect(by[d[4].iccid]).toMatchObject({ state: 'active', planMb: 0, leftPercent: null, expiresAt: null });
  });

  it('filters by state, carrier, group, expiry, share left and keyword', async () => {
    const q = async (s: string) => idx(await list(c.token, s)).sort();
    expect(await q('&state=low,exhausted')).toEqual([1, 2]);
    expect(await q('&state=expired')).toEqual([3]);
    expect(await q('&carrier=cucc')).toEqual([4]);
    expect(await q(`&groupId=${groupId}`)).toEqual([0, 1]);
    expect(await q('&expiringDays=7')).toEqual([1]);
    expect(await q('&expiringDays=30')).toEqual([1, 2]);
    expect(await q('&belowPercent=10')).toEqual([1, 2]);
    expect(await q(`&keyword=${d[3].iccid.slice(-6)}`)).toEqual([3]);
    expect(await q(`&keyword=${d[0].sn.toLowerCase()}`)).toEqual([0]);
    expect(await q('&keyword=front')).toEqual([2]);
    expect(await q('&keyword=%25')).toEqual([]);
    expect(await q(`&state=low&groupId=${groupId}&belowPercent=5`)).toEqual([1]);
  });

  it('sorts by remaining, used this month and expiry both ways, and pages', async () => {
    const order = async (s: string) => idx(await list(c.token, s));
    // remaining: least left first; no plan counts as the most left
    expect(await order('&sort=remaining&order=asc')).toEqual([2, 1, 0, 3, 4]);
    expect(await order('&sort=remaining&order=desc')).toEqual([4, 3, 0, 1, 2]);
    const month = await order('&sort=usedMonth&order=desc');
    expect(month.slice(0, 3)).toEqual([2, 0, 1]);
    // expiry: no expiry date counts as the furthest
    expect(await order('&sort=expiry&order=asc')).toEqual([3, 1, 2, 0, 4]);
    expect(await order('&sort=expiry&order=desc')).toEqual([4, 0, 2, 1, 3]);
    const page2 = await list(c.token, '&sort=expiry&pageSize=2&pageNo=2');
    expect(page2.total).toBe(5);
    expect(idx(page2)).toEqual([2, 0]);
  });

  it('charts days of the last 30 or 90 days and months of the last 12, zero-filled', async () => {
    const x = d[0].iccid;
    await sql`insert into sim_usage_daily (sim_id, day, tx_bytes, rx_bytes)
      select id, (now() at time zone 'Asia/Shanghai')::date - g, 100, 1000 from sims, generate_series(40, 44) g
      where iccid = ${x}`.execute(h.db);
    await sql`insert into sim_usage_daily (sim_id, day, tx_bytes, rx_bytes)
      select id, (now() at time zone 'Asia/Shanghai')::date - 395, 7, 7 from sims where iccid = ${x}`.execute(h.db);
    const d30 = await usage(c.token, x, '30d');
    expect(d30.unit).toBe('day');
    expect(d30.points).toHaveLength(30);
    expect(d30.points.at(-1)).toEqual({ date: localDay(), txBytes: 0, rxBytes: 50 * MB });
    expect(d30.points[0].date).toBe(localDay(-29));
    expect(d30.points.slice(0, -1).every((p) => p.txBytes === 0 && p.rxBytes === 0)).toBe(true);
    const d90 = await usage(c.token, x, '90d');
    expect(d90.points).toHaveLength(90);
    expect(d90.points.filter((p) => p.txBytes === 100)).toHaveLength(5);
    const m12 = await usage(c.token, x, '12m');
    expect(m12.unit).toBe('month');
    expect(m12.points).toHaveLength(12);
    expect(m12.points.at(-1)!.date).toBe(localDay().slice(0, 7));
    expect(m12.points.reduce((s, p) => s + p.txBytes, 0)).toBe(500); // the 395-day-old row is outside 12 months
    expect(m12.points.reduce((s, p) => s + p.rxBytes, 0)).toBe(5000 + 50 * MB);
  });

  it('exports the filtered list as CSV with a BOM, headed in the caller language', async () => {
    const en = await get('/flowRate/sim/export?state=low,exhausted&sort=remaining', c.token, {
      'accept-language': 'en',
    });
    expect(en.statusCode).toBe(200);
    expect(en.headers['content-type']).toContain('text/csv');
    expect(en.headers['content-disposition']).toMatch(/attachment; filename="sims-\d+\.csv"/);
    expect(en.body.startsWith('\ufeffICCID,MSISDN,Carrier,Device SN')).toBe(true);
    const lines = en.body.trim().split('\r\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(d[2].iccid);
    expect(lines[1]).toContain('Used up');
    expect(lines[2]).toContain(d[1].iccid);
    const zh = await get('/flowRate/sim/export', c.token, { 'accept-language': 'zh-CN' });
    expect(zh.body.startsWith('\ufeffICCID,卡号,运营商')).toBe(true);
    expect(zh.body.trim().split('\r\n')).toHaveLength(6);
    expect(zh.body).toContain('已到期');
  });

  it('exports in batches by cursor in the list order, whatever the sort', async () => {
    const { FlowRateService } = await import('../src/modules/flow-rate/index.ts');
    const svc = new FlowRateService(h.db);
    const { loadAuthUserForTest } = await authUserOf(c.username);
    for (const sort of ['remaining', 'usedMonth', 'expiry'] as const)
      for (const order of ['asc', 'desc'] as const) {
        const all: string[] = [];
        for await (const s of svc.all(loadAuthUserForTest, { sort, order }, 100, 2)) all.push(s.iccid);
        const listed = (await list(c.token, `&sort=${sort}&order=${order}`)).list.map((s) => s.iccid);
        expect(all, `${sort} ${order}`).toEqual(listed);
      }
  });

  it("totals the account's SIMs: by state, this month, the projection and the plans expiring soon", async () => {
    await sql`insert into sim_usage_daily (sim_id, day, tx_bytes, rx_bytes)
      select id, (now() at time zone 'Asia/Shanghai')::date - g, 0, ${7 * MB} from sims, generate_series(1, 7) g
      where iccid = ${d[1].iccid}`.execute(h.db);
    const res = await get('/flowRate/sim/summary', c.token);
    expect(res.statusCode).toBe(200);
    const s = res.body_.data;
    expect(s).toMatchObject({
      total: 5,
      byState: { active: 2, low: 1, exhausted: 1, expired: 1, suspended: 0 },
      usedMonthMb: 150,
      expiringSoon: 1,
    });
    // 7 MB a day over the last 7 days, for each day left in the month after today
    const now = new Date(Date.now() + 8 * 3600_000);
    const daysInMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).getUTCDate();
    expect(s.projectedMonthMb).toBeCloseTo(150 + 7 * (daysInMonth - now.getUTCDate()), 1);
  });

  it("answers 404 for another account's SIM and lists none of them", async () => {
    const other = await registerCustomer(h);
    const res = await get(`/flowRate/sim/usage?iccid=${d[0].iccid}`, other.token);
    expect(res.statusCode).toBe(404);
    expect(res.body_.code).toBe(404);
    expect((await list(other.token)).total).toBe(0);
    expect((await get('/flowRate/sim/summary', other.token)).body_.data.total).toBe(0);
    const csv = await get('/flowRate/sim/export', other.token);
    expect(csv.body.trim().split('\r\n')).toHaveLength(1);
    // an ICCID nobody has
    expect((await get('/flowRate/sim/usage?iccid=89860000000000000000', c.token)).statusCode).toBe(404);
  });

  it('refuses bad input with a 400 naming the field', async () => {
    const bad = async (q: string, field: string, url = '/flowRate/sim/list') => {
      const res = await get(`${url}?${q}`, c.token);
      expect(res.statusCode, q).toBe(400);
      expect(res.body_.code).toBe(400);
      expect(JSON.stringify(res.body_.data), q).toContain(field);
    };
    await bad('state=lowish', 'state');
    await bad('state=low,,exhausted', 'state');
    await bad('expiringDays=0', 'expiringDays');
    await bad('expiringDays=abc', 'expiringDays');
    await bad('belowPercent=101', 'belowPercent');
    await bad('groupId=-1', 'groupId');
    await bad('sort=name', 'sort');
    await bad('order=up', 'order');
    await bad('pageSize=1000', 'pageSize');
    await bad('pageNo=0', 'pageNo');
    await bad('keyword=' + 'x'.repeat(60), 'keyword');
    await bad('other=1', 'other');
    await bad('iccid=123', 'iccid', '/flowRate/sim/usage');
    await bad(`iccid=${d[0].iccid}&range=7d`, 'range', '/flowRate/sim/usage');
    await bad('state=nope', 'state', '/flowRate/sim/export');
    await bad('lang=fr', 'lang', '/flowRate/sim/export');
  });

  it('needs flowRate:view and a signed-in caller, and shows a sub-account only the SIMs of its data scope', async () => {
    expect((await h.call({ method: 'GET', url: '/apiAdmin/flowRate/sim/list' })).statusCode).toBe(401);
    const sub = (permissions: string[]) => subAccount(c, permissions);
    // without flowRate:view: refused
    const plain = await sub(['device:view']);
    expect((await get('/flowRate/sim/list', plain.token)).statusCode).toBe(403);
    expect((await get('/flowRate/sim/summary', plain.token)).statusCode).toBe(403);
    // with it, scope `own`: only the SIMs of the devices it bound
    const own = await sub(['flowRate:view']);
    expect((await list(own.token)).total).toBe(0);
    await h.db.updateTable('devices').set({ owner_id: own.id }).where('id', '=', d[0].id).execute();
    expect((await list(own.token)).list.map((x) => x.iccid)).toEqual([d[0].iccid]);
    expect((await get('/flowRate/sim/summary', own.token)).body_.data.total).toBe(1);
    expect((await get(`/flowRate/sim/usage?iccid=${d[0].iccid}`, own.token)).statusCode).toBe(200);
    expect((await get(`/flowRate/sim/usage?iccid=${d[1].iccid}`, own.token)).statusCode).toBe(404);
    const csv = await get('/flowRate/sim/export', own.token);
    expect(csv.body.trim().split('\r\n')).toHaveLength(2);
    await h.db.updateTable('devices').set({ owner_id: null }).where('id', '=', d[0].id).execute();
  });
});

describe('alerts', () => {
  it('sends one message per SIM and change, not one per report, and again after a top-up', async () => {
    const c = await registerCustomer(h);
    const [x] = await bound(c.token, 1);
    const userId = (
      await h.db.selectFrom('users').select('id').where('username', '=', c.username).executeTakeFirstOrThrow()
    ).id;
    const messages = () =>
      h.db
        .selectFrom('messages')
        .select(['kind', 'title', 'body'])
        .where('user_id', '=', userId)
        .where('kind', 'like', 'sim.%')
        .orderBy('id')
        .execute();
    // two sub-accounts that read the traffic query with the scope `own`: one bound the device, one did not
    const owner = await subAccount(c, ['flowRate:view']);
    const stranger = await subAccount(c, ['flowRate:view']);
    await h.db.updateTable('devices').set({ owner_id: owner.id }).where('id', '=', x.id).execute();
    const count = async (id: number) =>
      (
        await h.db
          .selectFrom('messages')
          .select('id')
          .where('user_id', '=', id)
          .where('kind', 'like', 'sim.%')
          .execute()
      ).length;
    await plan(x.iccid, { plan_total_mb: 1000, used_mb: 0 });
    await traffic(x.id, { iccid: x.iccid, usedMb: 100 });
    await sweepSims(h.db, sink);
    expect(await messages()).toEqual([]);
    // low: under 10 % left
    await traffic(x.id, { iccid: x.iccid, usedMb: 950 });
    published.length = 0;
    expect((await sweepSims(h.db, sink)).alerted).toBeGreaterThanOrEqual(1);
    expect(published).toContainEqual({ tenantId: expect.any(Number), event: { type: 'message', data: { userId } } });
    for (let i = 0; i < 3; i++) {
      await traffic(x.id, { iccid: x.iccid, usedMb: 960 + i });
      await sweepSims(h.db, sink);
    }
    expect(await messages()).toEqual([
      { kind: 'sim.low', title: 'SIM data running low', body: expect.stringContaining(x.iccid) },
    ]);
    expect(await count(owner.id)).toBe(1);
    expect(await count(stranger.id)).toBe(0);
    // the reader sees it in its language
    const zh = await get('/message/getList?pageSize=10', c.token, { 'accept-language': 'zh-CN' });
    expect(JSON.stringify(zh.body_.data)).toContain('流量卡流量不足');
    // used up
    await traffic(x.id, { iccid: x.iccid, usedMb: 1000 });
    await sweepSims(h.db, sink);
    await sweepSims(h.db, sink);
    expect((await messages()).map((m) => m.kind)).toEqual(['sim.low', 'sim.exhausted']);
    // a top-up: active again, nothing said; low again later is told again
    await plan(x.iccid, { plan_total_mb: 3000 });
    expect((await list(c.token, `&keyword=${x.iccid}`)).list[0].state).toBe('active');
    await sweepSims(h.db, sink);
    await traffic(x.id, { iccid: x.iccid, usedMb: 2990 });
    await sweepSims(h.db, sink);
    expect((await messages()).map((m) => m.kind)).toEqual(['sim.low', 'sim.exhausted', 'sim.low']);
  });

  it('tells an expiry within 7 days, then the expiry itself, and the sweep turns the SIM expired', async () => {
    const c = await registerCustomer(h);
    const [x] = await bound(c.token, 1);
    const kinds = async () =>
      (
        await h.db
          .selectFrom('messages')
          .innerJoin('users', 'users.id', 'messages.user_id')
          .select('messages.kind')
          .where('users.username', '=', c.username)
          .where('messages.kind', 'like', 'sim.%')
          .orderBy('messages.id')
          .execute()
      ).map((m) => m.kind);
    await plan(x.iccid, { plan_total_mb: 1000, used_mb: 1, expires_at: new Date(Date.now() + 30 * 86_400_000) });
    await sweepSims(h.db, sink);
    expect(await kinds()).toEqual([]);
    await plan(x.iccid, { expires_at: new Date(Date.now() + 2 * 86_400_000) });
    await sweepSims(h.db, sink);
    await sweepSims(h.db, sink);
    expect(await kinds()).toEqual(['sim.expiring']);
    // time passes: the expiry is in the past without anyone writing the SIM
    await sql`alter table sims disable trigger sims_data_state`.execute(h.db);
    await plan(x.iccid, { expires_at: new Date(Date.now() - 1000) });
    await sql`alter table sims enable trigger sims_data_state`.execute(h.db);
    published.length = 0;
    expect((await sweepSims(h.db, sink)).expired).toBe(1);
    expect(published).toContainEqual({
      tenantId: expect.any(Number),
      event: { type: 'sim', data: { iccids: [x.iccid] } },
    });
    expect((await list(c.token, `&keyword=${x.iccid}`)).list[0].state).toBe('expired');
    expect(await kinds()).toEqual(['sim.expiring', 'sim.expired']);
  });

  it('prunes daily rows older than the kept 400 days', async () => {
    const c = await registerCustomer(h);
    const [x] = await bound(c.token, 1);
    await sql`insert into sim_usage_daily (sim_id, day, tx_bytes, rx_bytes)
      select id, (now() at time zone 'Asia/Shanghai')::date - g, 1, 1 from sims, generate_series(399, 402) g
      where iccid = ${x.iccid}`.execute(h.db);
    expect((await sweepSims(h.db, sink)).pruned).toBe(2);
  });
});

/** A sub-account of the customer with a role of these permissions and the data scope `own`, signed in. */
async function subAccount(c: { username: string; token: string }, permissions: string[]) {
  const { tenant_id: tenantId } = await h.db
    .selectFrom('users')
    .select('tenant_id')
    .where('username', '=', c.username)
    .executeTakeFirstOrThrow();
  const code = `r_${Math.random().toString(36).slice(2, 10)}`;
  const role = await h.db
    .insertInto('roles')
    .values({ tenant_id: tenantId, code, name: code, permissions, data_scope: 'own' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const username = `fr_${code}`;
  const res = await post('/system/subAccount/create', c.token, {
    username,
    password: 'Sub0Passw0rd',
    confirmPassword: 'Sub0Passw0rd',
    roleIds: [role.id],
    departmentId: null,
  });
  expect(res.statusCode, res.body).toBe(200);
  return { id: res.body_.data.id as number, token: (await h.login(username, 'Sub0Passw0rd')).token };
}

/** The customer's main account as the services see it (what the auth hook loads for a request). */
async function authUserOf(username: string) {
  const { TenantScope } = await import('../src/db/tenant-scope.ts');
  const row = await h.db
    .selectFrom('users')
    .select(['id', 'tenant_id'])
    .where('username', '=', username)
    .executeTakeFirstOrThrow();
  const user = {
    id: row.id,
    tenantId: row.tenant_id,
    tenantKind: 'customer',
    isSuper: 1,
    admin: false,
    scope: new TenantScope(h.db, row.tenant_id),
  } as unknown as AuthUser;
  return { loadAuthUserForTest: user };
}

describe("the dashboard's plan widget", () => {
  it('counts the SIMs by state and lists the plans expiring within 7 days, soonest first', async () => {
    const c = await registerCustomer(h);
    const d = await bound(c.token, 4);
    const day = 86_400_000;
    await plan(d[0].iccid, { plan_total_mb: 1000, used_mb: 960, expires_at: new Date(Date.now() + 5 * day) });
    await plan(d[1].iccid, { plan_total_mb: 1000, used_mb: 100, expires_at: new Date(Date.now() + 2 * day) });
    await plan(d[2].iccid, { plan_total_mb: 100, used_mb: 100, expires_at: new Date(Date.now() + 30 * day) });
    await plan(d[3].iccid, { plan_total_mb: 100, used_mb: 1, expires_at: new Date(Date.now() - day) });
    const res = await get('/dashboard/overview', c.token);
    expect(res.statusCode, res.body).toBe(200);
    const p = res.body_.data.plan;
    expect(p).toMatchObject({
      total: 4,
      byState: { active: 1, low: 1, exhausted: 1, expired: 1, suspended: 0 },
      expiring: { count: 2 },
    });
    expect(p.expiring.sims.map((s: { iccid: string }) => s.iccid)).toEqual([d[1].iccid, d[0].iccid]);
    expect(p.expiring.sims[0]).toMatchObject({ deviceSn: d[1].sn, leftMb: 900 });
    // the reminder lists the used-up SIM beside the low one
    expect(res.body_.data.remind.simLow.count).toBe(2);
    // another account sees none of them
    const other = await registerCustomer(h);
    expect((await get('/dashboard/overview', other.token)).body_.data.plan).toMatchObject({
      total: 0,
      expiring: { count: 0, sims: [] },
    });
  });
});
