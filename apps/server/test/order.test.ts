import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import mqtt, { type MqttClient } from 'mqtt';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS, fenToYuan, type LiveEvent } from '@cpc/contracts';
import { deviceCredential } from '@cpc/contracts/device-protocol';
import { loadConfig } from '../src/config.ts';
import { createGateway, SandboxGateway } from '../src/modules/order/payment/index.ts';
import { OrderService } from '../src/modules/order/service.ts';
import { deliverNotification } from '../src/modules/order/gateway-routes.ts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { ADMIN_PASSWORD, createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, openEvents, subAccountWith, waitUntil, type Customer } from './device-helpers.ts';

/**
 * Traffic packages, orders, payment and fulfilment (issue 13) on real PostgreSQL, with the sandbox gateway
 * delivering its signed notifications over real HTTP and the device hearing its new plan over real MQTT.
 */
describe('orders and payment (sandbox)', () => {
  let h: Harness;
  let base: string;
  let staff: string;
  let A: Customer;
  let B: Customer;
  const specsA = makeSpecs(6, { seed: 131, prefix: 'ORA' });
  const specsB = makeSpecs(2, { seed: 132, prefix: 'ORB' });
  const clients: MqttClient[] = [];

  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: unknown) =>
    h.call({ method, url: `/apiAdmin${url}`, token, ...(payload === undefined ? {} : { payload: payload as object }) });
  const simRow = (iccid: string) =>
    h.db.selectFrom('sims').selectAll().where('iccid', '=', iccid).executeTakeFirstOrThrow();
  const orderRow = (id: number) => h.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const notify = (params: Record<string, string>) =>
    h.call({
      method: 'POST',
      url: '/pay/notify/sandbox',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(params).toString(),
    });
  const trade = (o: { orderNo: string; tenantId: number; totalFen: number }) => ({
    ...o,
    subject: 'test',
    exp: Date.now() + 600_000,
    notifyUrl: `${base}/pay/notify/sandbox`,
    lang: 'en' as const,
  });

  let pkg: { id: number; priceFen: number; dataMb: number; validityDays: number };

  async function newPackage(over: Record<string, unknown> = {}) {
    const res = await call('POST', '/order/package/create', staff, {
      name: `P ${randomUUID().slice(0, 6)}`,
      dataMb: 1024,
      validityDays: 30,
      priceFen: 1990,
      onShelf: true,
      ...over,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.body_.data;
  }
  async function newOrder(token: string, iccids: string[], packageId = pkg.id) {
    const res = await call('POST', '/order/create', token, {
      clientRequestId: randomUUID(),
      lines: iccids.map((iccid) => ({ iccid, packageId })),
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.body_.data;
  }

  beforeAll(async () => {
    h = await createHarness({ ORDER_SWEEP_S: '1' });
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    staff = (await h.login('admin', ADMIN_PASSWORD)).token;
    A = await customer(h);
    B = await customer(h);
    await devicesOf(h, A.tenantId, specsA);
    await devicesOf(h, B.tenantId, specsB);
    await h.db
      .updateTable('sims')
      .set({ plan_total_mb: 100, used_mb: 20 })
      .where(
        'iccid',
        'in',
        [...specsA, ...specsB].map((s) => s.iccid),
      )
      .execute();
    pkg = await newPackage();
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) await c.endAsync(true).catch(() => {});
    await h?.close();
  });

  describe('the catalogue', () => {
    it('is managed by staff only; customers see what is on sale', async () => {
      const off = await newPackage({ onShelf: false, name: 'Hidden' });
      expect(off.priceFen).toBe(1990);
      const denied = await call('POST', '/order/package/create', A.token, {
        name: 'Mine',
        dataMb: 1,
        validityDays: 1,
        priceFen: 1,
      });
      expect(denied.statusCode).toBe(403);
      const up = await call('POST', '/order/package/update', staff, { id: off.id, priceFen: 2590, name: 'Hidden 2' });
      expect(up.body_.data).toMatchObject({ priceFen: 2590, name: 'Hidden 2' });
      const bad = await call('POST', '/order/package/create', staff, {
        name: 'x',
        dataMb: 1,
        validityDays: 1,
        priceFen: 12.5,
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.body_.data.fields[0].field).toBe('priceFen');
      const asCustomer = await call('GET', '/order/package/list', A.token);
      expect(asCustomer.body_.data.list.map((p: { id: number }) => p.id)).not.toContain(off.id);
      const asStaff = await call('GET', '/order/package/list', staff);
      expect(asStaff.body_.data.list.map((p: { id: number }) => p.id)).toContain(off.id);
      const shelf = await call('POST', '/order/package/shelf', staff, { id: off.id, onShelf: true });
      expect(shelf.body_.data.onShelf).toBe(true);
      expect(
        (await call('GET', '/order/package/list', A.token)).body_.data.list.map((p: { id: number }) => p.id),
      ).toContain(off.id);
      expect((await call('POST', '/order/package/delete', staff, { id: off.id })).statusCode).toBe(200);
      expect((await call('POST', '/order/package/delete', staff, { id: off.id })).statusCode).toBe(404);
      const log = await h.db
        .selectFrom('audit_log')
        .select('action')
        .where('resource', '=', 'traffic_package')
        .where('resource_id', '=', String(off.id))
        .execute();
      expect(log.map((r) => r.action).sort()).toEqual([
        'package.create',
        'package.delete',
        'package.shelf',
        'package.update',
      ]);
    });

    it('lists for a SIM only the packages that fit its carrier and plan', async () => {
      const ctcc = await newPackage({ carriers: ['ctcc'], name: 'Telecom only' });
      const big = await newPackage({ planMinMb: 1000, name: 'Big plans' });
      const list = await call('GET', `/order/package/list?iccid=${specsA[0].iccid}`, A.token);
      const ids = list.body_.data.list.map((p: { id: number }) => p.id);
      expect(ids).toContain(pkg.id);
      expect(ids).not.toContain(ctcc.id);
      expect(ids).not.toContain(big.id);
      const misfit = await call('POST', '/order/quote', A.token, {
        lines: [{ iccid: specsA[0].iccid, packageId: ctcc.id }],
      });
      expect(misfit.statusCode).toBe(400);
      expect(misfit.body_.data.fields[0].field).toBe('lines.0.packageId');
      await call('POST', '/order/package/shelf', staff, { id: ctcc.id, onShelf: false });
      await call('POST', '/order/package/shelf', staff, { id: big.id, onShelf: false });
    });
  });

  describe('pricing and creation', () => {
    it('prices on the server: a price, amount or quantity from the browser is refused', async () => {
      for (const extra of [{ totalFen: 1 }, { amount: '0.01' }]) {
        const res = await call('POST', '/order/create', A.token, {
          clientRequestId: randomUUID(),
          lines: [{ iccid: specsA[0].iccid, packageId: pkg.id }],
          ...extra,
        });
        expect(res.statusCode).toBe(400);
      }
      const tamperedLine = await call('POST', '/order/create', A.token, {
        clientRequestId: randomUUID(),
        lines: [{ iccid: specsA[0].iccid, packageId: pkg.id, priceFen: 1, quantity: 100 }],
      });
      expect(tamperedLine.statusCode).toBe(400);
      const o = await newOrder(A.token, [specsA[0].iccid, specsA[1].iccid]);
      expect(o).toMatchObject({ state: 'pending', totalFen: 2 * 1990, lineCount: 2 });
      const count = await h.db
        .selectFrom('orders')
        .select(sql<number>`count(*)::int`.as('n'))
        .executeTakeFirst();
      expect(count!.n).toBeGreaterThan(0);
    });

    it('creates one order for concurrent double submits of one client request id', async () => {
      const clientRequestId = randomUUID();
      const body = { clientRequestId, lines: [{ iccid: specsA[2].iccid, packageId: pkg.id }] };
      const answers = await Promise.all(Array.from({ length: 5 }, () => call('POST', '/order/create', A.token, body)));
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200]);
      expect(new Set(answers.map((a) => a.body_.data.id)).size).toBe(1);
      const rows = await h.db
        .selectFrom('orders')
        .select('id')
        .where('client_request_id', '=', clientRequestId)
        .execute();
      expect(rows).toHaveLength(1);
    });

    it('keeps to the per-SIM limit', async () => {
      const once = await newPackage({ perSimLimit: 1, name: 'Once' });
      await newOrder(A.token, [specsA[3].iccid], once.id);
      const again = await call('POST', '/order/create', A.token, {
        clientRequestId: randomUUID(),
        lines: [{ iccid: specsA[3].iccid, packageId: once.id }],
      });
      expect(again.statusCode).toBe(400);
      expect(again.body_.data.fields[0].key).toBe('order.perSimLimit');
    });

    it('refuses a sub-account without flowRate:buy, and lets one with it buy', async () => {
      const viewer = await subAccountWith(h, A.tenantId, [PERMISSIONS.flowRateView]);
      const res = await call('POST', '/order/create', viewer, {
        clientRequestId: randomUUID(),
        lines: [{ iccid: specsA[0].iccid, packageId: pkg.id }],
      });
      expect(res.statusCode).toBe(403);
      const buyer = await subAccountWith(h, A.tenantId, [PERMISSIONS.flowRateBuy]);
      const bought = await call('POST', '/order/create', buyer, {
        clientRequestId: randomUUID(),
        lines: [{ iccid: specsA[0].iccid, packageId: pkg.id }],
      });
      expect(bought.statusCode).toBe(200);
      await call('POST', '/order/cancel', buyer, { id: bought.body_.data.id });
      // with the 'own' data scope, the SIMs of devices someone else bound are out of reach (404), as are the orders
      const own = await subAccountWith(h, A.tenantId, [PERMISSIONS.flowRateBuy]);
      // the sub-account just created is the tenant's newest user
      const ownId = (
        await h.db
          .selectFrom('users')
          .select('id')
          .where('tenant_id', '=', A.tenantId)
          .orderBy('id', 'desc')
          .executeTakeFirstOrThrow()
      ).id;
      await h.db
        .updateTable('roles')
        .set({ data_scope: 'own' })
        .where('tenant_id', '=', A.tenantId)
        .where('id', 'in', h.db.selectFrom('user_roles').select('role_id').where('user_id', '=', ownId))
        .execute();
      const outOfScope = await call('POST', '/order/create', own, {
        clientRequestId: randomUUID(),
        lines: [{ iccid: specsA[0].iccid, packageId: pkg.id }],
      });
      expect(outOfScope.statusCode).toBe(404);
      expect((await call('GET', '/order/sim/options', own)).body_.data).toEqual([]);
      expect((await call('GET', `/order/detail?id=${bought.body_.data.id}`, own)).statusCode).toBe(404);
    });
  });

  describe('the sandbox gateway', () => {
    it('renders the cashier page with the amount, a QR code and Pay / Fail; a tampered trade is refused', async () => {
      const o = await newOrder(A.token, [specsA[4].iccid]);
      const pay = await call('POST', '/order/pay', A.token, { id: o.id, lang: 'en' });
      expect(pay.statusCode, pay.body).toBe(200);
      expect(pay.body_.data.provider).toBe('sandbox');
      const url = new URL(pay.body_.data.cashierUrl);
      const page = await h.call({ method: 'GET', url: `${url.pathname}${url.search}` });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(page.body).toContain(`¥${fenToYuan(o.totalFen)}`);
      expect(page.body).toContain('<svg');
      expect(page.body).toMatch(/value="pay"[^>]*>Pay</);
      expect(page.body).toMatch(/value="fail"[^>]*>Fail</);
      const zh = await h.call({ method: 'GET', url: `${url.pathname}${url.search}&lang=zh` });
      expect(zh.body).toContain('沙箱收银台');
      const token = url.searchParams.get('trade')!;
      const [body, mac] = token.split('.');
      const forged = JSON.parse(Buffer.from(body, 'base64url').toString());
      forged.totalFen = 1;
      const tampered = `${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${mac}`;
      const bad = await h.call({
        method: 'GET',
        url: `/pay/sandbox/cashier?lang=en&trade=${encodeURIComponent(tampered)}`,
      });
      expect(bad.body).not.toContain('¥0.01');
      expect(bad.body).toContain('tampered');
    });

    it('pays: an asynchronous signed notification fulfils the order, grows the SIMs and tells the devices', async () => {
      const sims = [specsA[0], specsA[1], specsA[5]];
      const before = await Promise.all(sims.map((s) => simRow(s.iccid)));
      const device = await mqtt.connectAsync(h.app.gateway.deviceUrl, {
        clientId: sims[0].sn,
        username: sims[0].sn,
        password: deviceCredential(sims[0].secret, sims[0].sn),
        protocolVersion: 4,
        reconnectPeriod: 0,
      });
      clients.push(device);
      const got: Array<{ topic: string; msg: any }> = [];
      device.on('message', (topic, payload) => got.push({ topic, msg: JSON.parse(payload.toString()) }));
      await device.subscribeAsync(`cp/v1/${sims[0].sn}/down/#`, { qos: 1 });

      const o = await newOrder(
        A.token,
        sims.map((s) => s.iccid),
      );
      // over real HTTP: the cashier and the notify URL are on the server's own origin
      const pay = await fetch(`${base}/apiAdmin/order/pay`, {
        method: 'POST',
        headers: { authorization: `Bearer ${A.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: o.id }),
      });
      const cashier = new URL(((await pay.json()) as { data: { cashierUrl: string } }).data.cashierUrl);
      expect(cashier.origin).toBe(base);
      // the browser presses "Pay" on the cashier page, over real HTTP; the gateway then notifies the server
      const res = await fetch(`${base}/pay/sandbox/submit`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ trade: cashier.searchParams.get('trade')!, action: 'pay', lang: 'en' }).toString(),
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('Paid');
      const done = await waitUntil('fulfilled', async () => {
        const d = await call('GET', `/order/detail?id=${o.id}`, A.token);
        return d.body_.data.state === 'fulfilled' ? d.body_.data : null;
      });
      expect(done.paidAt).not.toBeNull();
      expect(done.tradeNo).toBe(`SBX${o.orderNo}`);
      for (const [i, s] of sims.entries()) {
        const after = await simRow(s.iccid);
        expect(Number(after.plan_total_mb)).toBe(Number(before[i].plan_total_mb) + 1024);
        expect(after.expires_at!.getTime()).toBeGreaterThan(Date.now() + 29 * 86400_000);
        const line = done.lines.find((l: { iccid: string }) => l.iccid === s.iccid);
        expect(line).toMatchObject({ planBefore: 100, planAfter: 1124 });
        expect(line.fulfilledAt).not.toBeNull();
      }
      const config = await waitUntil('down/config', () => got.find((g) => g.topic.endsWith('/down/config')));
      expect(config.msg.sim).toMatchObject({ iccid: sims[0].iccid, planMb: 1124, orderNo: o.orderNo });
      const log = await h.db
        .selectFrom('audit_log')
        .select('action')
        .where('resource', '=', 'order')
        .where('resource_id', '=', String(o.id))
        .execute();
      expect(log.map((r) => r.action).sort()).toEqual(['order.create', 'order.fulfil', 'order.pay']);
    });

    it('reports a failed payment ("Fail" in the cashier) and lets the customer pay again', async () => {
      const sim = specsA[3];
      const o = await newOrder(A.token, [sim.iccid]);
      const before = Number((await simRow(sim.iccid)).plan_total_mb);
      const start = async () => {
        const res = await fetch(`${base}/apiAdmin/order/pay`, {
          method: 'POST',
          headers: { authorization: `Bearer ${A.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ id: o.id, lang: 'zh' }),
        });
        return new URL(((await res.json()) as { data: { cashierUrl: string } }).data.cashierUrl).searchParams.get(
          'trade',
        )!;
      };
      const press = (trade: string, action: string) =>
        fetch(`${base}/pay/sandbox/submit`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ trade, action }).toString(),
        });
      const failed = await press(await start(), 'fail');
      expect(await failed.text()).toContain('支付失败');
      const seen = await waitUntil('payment failed', async () => {
        const d = await call('GET', `/order/detail?id=${o.id}`, A.token);
        return d.body_.data.payFailedAt ? d.body_.data : null;
      });
      expect(seen.state).toBe('pending');
      expect(Number((await simRow(sim.iccid)).plan_total_mb)).toBe(before);
      const forged = await press('not-a-trade', 'pay');
      expect(forged.status).toBe(400);
      await press(await start(), 'pay');
      const done = await waitUntil('fulfilled after a retry', async () => {
        const d = await call('GET', `/order/detail?id=${o.id}`, A.token);
        return d.body_.data.state === 'fulfilled' ? d.body_.data : null;
      });
      expect(done.payFailedAt).toBeNull();
      expect(Number((await simRow(sim.iccid)).plan_total_mb)).toBe(before + 1024);
    });

    it('fulfils once for 20 concurrent deliveries of one notification', async () => {
      const sim = specsA[2];
      const o = await newOrder(A.token, [sim.iccid]);
      // the SIM is nearly used up: low
      await h.db
        .updateTable('sims')
        .set({ used_mb: sql`plan_total_mb - 5` })
        .where('iccid', '=', sim.iccid)
        .execute();
      expect((await simRow(sim.iccid)).state).toBe('low');
      const before = Number((await simRow(sim.iccid)).plan_total_mb);
      const g = new SandboxGateway(await secret(), undefined);
      const params = g.notification(trade({ orderNo: o.orderNo, tenantId: A.tenantId, totalFen: o.totalFen }), 'pay');
      const answers = await Promise.all(Array.from({ length: 20 }, () => notify(params)));
      expect(answers.map((a) => a.body)).toEqual(Array(20).fill('success'));
      expect(Number((await simRow(sim.iccid)).plan_total_mb)).toBe(before + 1024);
      expect((await simRow(sim.iccid)).state).toBe('active');
      expect((await orderRow(o.id)).state).toBe('fulfilled');
      const results = await h.db
        .selectFrom('payment_notifications')
        .select('result')
        .where('order_id', '=', o.id)
        .execute();
      expect(results.filter((r) => r.result === 'fulfilled')).toHaveLength(1);
      expect(results.filter((r) => r.result === 'duplicate')).toHaveLength(19);
    });

    it('refuses and logs a bad signature, a wrong amount, an unknown order and another tenant\u2019s order', async () => {
      const o = await newOrder(A.token, [specsA[4].iccid]);
      const g = new SandboxGateway(await secret(), undefined);
      const good = g.notification(trade({ orderNo: o.orderNo, tenantId: A.tenantId, totalFen: o.totalFen }), 'pay');
      const cases: Array<[string, Record<string, string>]> = [
        ['bad-signature', { ...good, total_amount: '0.01' }],
        ['bad-signature', { ...good, sign: 'AAAA' }],
        [
          'bad-signature',
          new SandboxGateway('another-secret', undefined).notification(
            trade({ orderNo: o.orderNo, tenantId: A.tenantId, totalFen: o.totalFen }),
            'pay',
          ),
        ],
        [
          'wrong-amount',
          g.notification(trade({ orderNo: o.orderNo, tenantId: A.tenantId, totalFen: o.totalFen - 1 }), 'pay'),
        ],
        [
          'unknown-order',
          g.notification(trade({ orderNo: '20990101000000000000', tenantId: A.tenantId, totalFen: 1 }), 'pay'),
        ],
        [
          'wrong-tenant',
          g.notification(trade({ orderNo: o.orderNo, tenantId: B.tenantId, totalFen: o.totalFen }), 'pay'),
        ],
      ];
      for (const [result, params] of cases) {
        const res = await notify(params);
        expect(res.statusCode, result).toBe(200);
        expect(res.body, result).toBe('fail');
        const last = await h.db
          .selectFrom('payment_notifications')
          .select(['result', 'params'])
          .orderBy('id', 'desc')
          .executeTakeFirstOrThrow();
        expect(last.result).toBe(result);
        expect(JSON.stringify(last.params)).not.toContain('"sign"');
      }
      expect((await orderRow(o.id)).state).toBe('pending');
      const refused = await h.db
        .selectFrom('audit_log')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('action', '=', 'order.notify')
        .where('result', '=', 'fail')
        .executeTakeFirstOrThrow();
      expect(refused.n).toBeGreaterThanOrEqual(cases.length);
      const junk = await h.call({
        method: 'POST',
        url: '/pay/notify/sandbox',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: '%%%=&a',
      });
      expect(junk.statusCode).toBeLessThan(500);
    });

    it('never fulfils a canceled order that is paid afterwards: it is refunded', async () => {
      const sim = specsA[4];
      const o = await newOrder(A.token, [sim.iccid]);
      const cancel = await call('POST', '/order/cancel', A.token, { id: o.id });
      expect(cancel.body_.data.state).toBe('canceled');
      expect((await call('POST', '/order/pay', A.token, { id: o.id })).statusCode).toBe(409);
      const before = Number((await simRow(sim.iccid)).plan_total_mb);
      const g = new SandboxGateway(await secret(), undefined);
      const res = await notify(
        g.notification(trade({ orderNo: o.orderNo, tenantId: A.tenantId, totalFen: o.totalFen }), 'pay'),
      );
      expect(res.body).toBe('success');
      const row = await orderRow(o.id);
      expect(row.state).toBe('refunded');
      expect(row.fulfilled_at).toBeNull();
      expect(Number((await simRow(sim.iccid)).plan_total_mb)).toBe(before);
    });

    it('refunds, never fulfils, a payment that arrives after the order closed', async () => {
      const sim = specsA[4];
      const o = await newOrder(A.token, [sim.iccid]);
      await h.db
        .updateTable('orders')
        .set({ expires_at: sql`now() - interval '1 second'` })
        .where('id', '=', o.id)
        .execute();
      const before = Number((await simRow(sim.iccid)).plan_total_mb);
      const g = new SandboxGateway(await secret(), undefined);
      const res = await notify(
        g.notification(trade({ orderNo: o.orderNo, tenantId: A.tenantId, totalFen: o.totalFen }), 'pay'),
      );
      expect(res.body).toBe('success');
      const row = await orderRow(o.id);
      expect(row.state).toBe('refunded');
      expect(row.refund_reason).toMatch(/closed/);
      expect(Number((await simRow(sim.iccid)).plan_total_mb)).toBe(before);
    });

    it('tells the consoles live: the customer and staff hear the order change', async () => {
      const mine = await openEvents(h, base, A.token);
      const staffs = await openEvents(h, base, staff);
      try {
        const o = await newOrder(A.token, [specsA[2].iccid]);
        const g = new SandboxGateway(await secret(), undefined);
        await notify(g.notification(trade({ orderNo: o.orderNo, tenantId: A.tenantId, totalFen: o.totalFen }), 'pay'));
        const fulfilled = (e: LiveEvent) => e.type === 'order' && e.data.id === o.id && e.data.state === 'fulfilled';
        await mine.waitFor('the customer hears it', fulfilled);
        await staffs.waitFor('staff hear it', fulfilled);
        await mine.waitFor('the SIM changed', (e) => e.type === 'sim' && e.data.iccids.includes(specsA[2].iccid));
      } finally {
        mine.close();
        staffs.close();
      }
    });

    it('closes an order unpaid for 15 minutes, and then refuses to pay it', async () => {
      const o = await newOrder(A.token, [specsA[4].iccid]);
      await h.db
        .updateTable('orders')
        .set({ expires_at: sql`now() - interval '1 second'` })
        .where('id', '=', o.id)
        .execute();
      await waitUntil('closed by the sweep', async () => (await orderRow(o.id)).state === 'closed', 10_000);
      const pay = await call('POST', '/order/pay', A.token, { id: o.id });
      expect(pay.statusCode).toBe(409);
      const o2 = await newOrder(A.token, [specsA[4].iccid]);
      await h.db
        .updateTable('orders')
        .set({ expires_at: sql`now() - interval '1 second'` })
        .where('id', '=', o2.id)
        .execute();
      const pay2 = await call('POST', '/order/pay', A.token, { id: o2.id });
      expect(pay2.statusCode).toBe(409);
      expect(pay2.body_.msg).toMatch(/closed/);
    });
  });

  describe('top-up records and refunds', () => {
    it('lists the tenant\u2019s orders with filters; staff see every tenant\u2019s', async () => {
      const mine = await call('GET', '/order/list?state=fulfilled', A.token);
      expect(mine.statusCode).toBe(200);
      expect(mine.body_.data.total).toBeGreaterThanOrEqual(2);
      expect(mine.body_.data.list.every((o: { state: string }) => o.state === 'fulfilled')).toBe(true);
      const bySim = await call('GET', `/order/list?iccid=${specsA[5].iccid}`, A.token);
      expect(bySim.body_.data.total).toBe(1);
      const byPackage = await call('GET', `/order/list?packageId=${pkg.id}&pageSize=100`, A.token);
      expect(byPackage.body_.data.total).toBeGreaterThan(2);
      const future = await call('GET', `/order/list?from=${encodeURIComponent('2099-01-01T00:00:00Z')}`, A.token);
      expect(future.body_.data.total).toBe(0);
      const theirs = await call('GET', '/order/list', B.token);
      expect(theirs.body_.data.total).toBe(0);
      const all = await call('GET', `/order/list?tenantId=${A.tenantId}`, staff);
      expect(all.body_.data.total).toBe(mine.body_.data.total + (await countOf(A.tenantId, 'fulfilled', true)));
      expect(all.body_.data.list[0].tenantName).not.toBe('');
    });

    it("feeds the dashboard's order widget: recent orders and this month's spend", async () => {
      const paid = await h.db
        .selectFrom('orders')
        .select([sql<string>`sum(total_fen)`.as('fen')])
        .where('tenant_id', '=', A.tenantId)
        .where('state', 'in', ['paid', 'fulfilled'])
        .executeTakeFirstOrThrow();
      const res = await call('GET', '/dashboard/overview?tz=Asia%2FShanghai', A.token);
      expect(res.statusCode, res.body).toBe(200);
      const w = res.body_.data.orders;
      expect(w.monthSpendFen).toBe(Number(paid.fen));
      expect(w.monthSpendFen).toBeGreaterThan(0);
      expect(w.recent).toHaveLength(5);
      const latest = await h.db
        .selectFrom('orders')
        .select('id')
        .where('tenant_id', '=', A.tenantId)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(w.recent[0].id).toBe(latest.id);
      const devicesOnly = await subAccountWith(h, A.tenantId, [PERMISSIONS.deviceView]);
      expect((await call('GET', '/dashboard/overview', devicesOnly)).body_.data.orders).toBeNull();
      expect((await call('GET', '/dashboard/overview', B.token)).body_.data.orders).toMatchObject({
        recent: [],
        monthSpendFen: 0,
      });
    });

    it('keeps tenants apart: another tenant\u2019s SIM, order or refund answers 404', async () => {
      const o = await newOrder(A.token, [specsA[4].iccid]);
      expect((await call('GET', `/order/detail?id=${o.id}`, B.token)).statusCode).toBe(404);
      expect((await call('POST', '/order/cancel', B.token, { id: o.id })).statusCode).toBe(404);
      expect((await call('POST', '/order/pay', B.token, { id: o.id })).statusCode).toBe(404);
      const foreign = await call('POST', '/order/create', B.token, {
        clientRequestId: randomUUID(),
        lines: [{ iccid: specsA[0].iccid, packageId: pkg.id }],
      });
      expect(foreign.statusCode).toBe(404);
      const opts = await call('GET', `/order/sim/options?iccids=${specsA[0].iccid},${specsB[0].iccid}`, B.token);
      expect(opts.body_.data.map((s: { iccid: string }) => s.iccid)).toEqual([specsB[0].iccid]);
      expect((await call('POST', '/order/refund', B.token, { id: o.id, reason: 'x' })).statusCode).toBe(403);
      expect((await call('POST', '/order/refund', staff, { id: 999999999, reason: 'x' })).statusCode).toBe(404);
    });

    it('refunds only through the provider that took the payment: one no longer set up is named in a 409', async () => {
      // paid while the server ran with PAYMENT_PROVIDER=alipay; it runs with the sandbox now
      const o = await newOrder(A.token, [specsA[2].iccid]);
      await h.db
        .updateTable('orders')
        .set({ state: 'fulfilled', provider: 'alipay', trade_no: '2026112622001400000001', paid_at: sql`now()` })
        .where('id', '=', o.id)
        .execute();
      const res = await h.call({
        method: 'POST',
        url: '/apiAdmin/order/refund',
        token: staff,
        payload: { id: o.id, reason: 'Customer asked' },
        headers: { 'accept-language': 'en' },
      });
      expect(res.statusCode).toBe(409);
      expect(res.body_.code).toBe(409);
      expect(res.body_.msg).toContain('"alipay"');
      expect(res.body_.data).toMatchObject({ provider: 'alipay' });
      // nothing changed: not refunded, no refund in the system log
      expect(await orderRow(o.id)).toMatchObject({ state: 'fulfilled', refunded_at: null, refund_reason: null });
      const log = await h.db
        .selectFrom('audit_log')
        .select('action')
        .where('resource', '=', 'order')
        .where('resource_id', '=', String(o.id))
        .where('action', '=', 'order.refund')
        .execute();
      expect(log).toEqual([]);
      const zh = await h.call({
        method: 'POST',
        url: '/apiAdmin/order/refund',
        token: staff,
        payload: { id: o.id, reason: 'Customer asked' },
        headers: { 'accept-language': 'zh-CN' },
      });
      expect(zh.body_.msg).toContain('“alipay”');
    });

    it('lets staff refund a paid order with a reason; the data stays, the money goes back', async () => {
      const fulfilled = await h.db
        .selectFrom('orders')
        .select(['id', 'state'])
        .where('tenant_id', '=', A.tenantId)
        .where('state', '=', 'fulfilled')
        .orderBy('id')
        .executeTakeFirstOrThrow();
      const noReason = await call('POST', '/order/refund', staff, { id: fulfilled.id, reason: ' ' });
      expect(noReason.statusCode).toBe(400);
      expect(noReason.body_.data.fields[0].field).toBe('reason');
      const byCustomer = await call('POST', '/order/refund', A.token, { id: fulfilled.id, reason: 'please' });
      expect(byCustomer.statusCode).toBe(403);
      const ok = await call('POST', '/order/refund', staff, { id: fulfilled.id, reason: 'Customer asked' });
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.body_.data).toMatchObject({ state: 'refunded', refundReason: 'Customer asked', refundedBy: 'admin' });
      const again = await call('POST', '/order/refund', staff, { id: fulfilled.id, reason: 'twice' });
      expect(again.statusCode).toBe(409);
      const pending = await newOrder(A.token, [specsA[4].iccid]);
      expect((await call('POST', '/order/refund', staff, { id: pending.id, reason: 'no' })).statusCode).toBe(409);
      const seen = await call('GET', `/order/detail?id=${fulfilled.id}`, A.token);
      expect(seen.body_.data.state).toBe('refunded');
    });
  });

  async function countOf(tenantId: number, state: string, not: boolean) {
    const r = await h.db
      .selectFrom('orders')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('tenant_id', '=', tenantId)
      .where('state', not ? '!=' : '=', state as never)
      .executeTakeFirstOrThrow();
    return r.n;
  }
  async function secret() {
    const r = await sql<{ value: string }>`select value from app_settings where key = 'sandbox_pay_secret'`.execute(
      h.db,
    );
    return r.rows[0].value;
  }
});

describe('the sandbox gateway delivering a notification', () => {
  it('posts it form-encoded, again after a wait while the answer is not exactly "success"', async () => {
    const answers = ['fail', 'Success', 'ok'];
    const got: string[] = [];
    const srv = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        got.push(`${req.headers['content-type']} ${body}`);
        res.end(answers[got.length - 1] ?? 'success');
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/pay/notify/sandbox`;
    const log = { warn: () => {} } as unknown as FastifyBaseLogger;
    try {
      expect(await deliverNotification(url, { out_trade_no: '1', sign: 'a+b' }, log, [10, 10])).toBe(false);
      expect(got).toHaveLength(3);
      expect(got[0]).toBe('application/x-www-form-urlencoded;charset=utf-8 out_trade_no=1&sign=a%2Bb');
      answers.splice(0, 3, 'fail', 'success');
      got.length = 0;
      expect(await deliverNotification(url, { out_trade_no: '2' }, log, [10, 10])).toBe(true);
      expect(got).toHaveLength(2);
    } finally {
      srv.close();
    }
  });
});

describe('payment configuration', () => {
  it('refuses the sandbox with NODE_ENV=production, and Alipay without its keys; production sells nothing by default', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', PAYMENT_PROVIDER: 'sandbox' })).toThrow(
      /PAYMENT_PROVIDER: "sandbox"/,
    );
    expect(loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'https://print.example.com' }).PAYMENT_PROVIDER).toBe(
      'off',
    );
    expect(() => loadConfig({ NODE_ENV: 'production', PAYMENT_PROVIDER: 'alipay' })).toThrow(/ALIPAY_APP_ID/);
    expect(loadConfig({ NODE_ENV: 'test' }).PAYMENT_PROVIDER).toBe('sandbox');
  });

  it('with payments off, buying and paying answer 503 saying so, and no notification is taken', async () => {
    const off = createGateway(
      loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'https://print.example.com' }),
      'unused',
    );
    expect(off.name).toBe('off');
    await expect(
      off.start(
        { orderNo: '1', tenantId: 1, totalFen: 100, subject: 'x', expiresAt: new Date() },
        { origin: '', lang: 'en' },
      ),
    ).rejects.toMatchObject({ code: 503, key: 'order.paymentOff' });
    expect(off.verify({ out_trade_no: '1', sign: 'x' })).toBeNull();
    const service = Object.assign(Object.create(OrderService.prototype) as OrderService, { gateway: off });
    await expect(
      service.create({} as never, { clientRequestId: 'r1', lines: [{ iccid: '8986', packageId: 1 }] }, '127.0.0.1'),
    ).rejects.toMatchObject({ code: 503, key: 'order.paymentOff' });
  });
});
