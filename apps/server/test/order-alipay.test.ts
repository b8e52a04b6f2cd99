import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSign, createVerify, generateKeyPairSync, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fenToYuan } from '@cpc/contracts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { ADMIN_PASSWORD, createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, type Customer } from './device-helpers.ts';

/** Signs a notification as Alipay does: every parameter but sign / sign_type, sorted, k=v&…, RSA-SHA256 (RSA2). */
function alipaySign(params: Record<string, string>, privateKey: string): Record<string, string> {
  const content = Object.keys(params)
    .filter((k) => k !== 'sign' && k !== 'sign_type' && params[k] !== '')
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');
  return { ...params, sign_type: 'RSA2', sign: createSign('RSA-SHA256').update(content).sign(privateKey, 'base64') };
}

const pem = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });

/**
 * PAYMENT_PROVIDER=alipay through the official alipay-sdk, with locally generated keys: the application's pair
 * (the server signs its requests) and a stand-in "Alipay" pair (the test signs notifications as Alipay would),
 * and a tiny local HTTP server standing in for Alipay's gateway for the refund call.
 */
describe('orders with PAYMENT_PROVIDER=alipay', () => {
  const app = pem();
  const alipay = pem();
  let h: Harness;
  let staff: string;
  let A: Customer;
  const specs = makeSpecs(2, { seed: 141, prefix: 'ORP' });
  let gatewayUrl: string;
  const calls: URLSearchParams[] = [];
  let refundCode = '10000';
  const stand = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const params = new URLSearchParams(body);
      for (const [k, v] of url.searchParams) params.set(k, v);
      calls.push(params);
      res.setHeader('content-type', 'application/json;charset=utf-8');
      res.end(
        JSON.stringify({
          alipay_trade_refund_response: {
            code: refundCode,
            msg: refundCode === '10000' ? 'Success' : 'Business Failed',
            out_trade_no: JSON.parse(params.get('biz_content') ?? '{}').out_trade_no,
            refund_fee: '0.00',
          },
          sign: 'unchecked',
        }),
      );
    });
  });

  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: object) =>
    h.call({ method, url: `/apiAdmin${url}`, token, ...(payload ? { payload } : {}) });
  const notify = (provider: string, params: Record<string, string>) =>
    h.call({
      method: 'POST',
      url: `/pay/notify/${provider}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(params).toString(),
    });

  beforeAll(async () => {
    await new Promise<void>((r) => stand.listen(0, '127.0.0.1', r));
    gatewayUrl = `http://127.0.0.1:${(stand.address() as AddressInfo).port}/gateway.do`;
    h = await createHarness({
      PAYMENT_PROVIDER: 'alipay',
      ALIPAY_APP_ID: '2021000000000001',
      ALIPAY_PRIVATE_KEY: app.privateKey,
      // as an environment variable would carry it: newlines written \n
      ALIPAY_PUBLIC_KEY: alipay.publicKey.replace(/\n/g, '\\n'),
      ALIPAY_GATEWAY: gatewayUrl,
      PUBLIC_URL: 'https://print.example.com',
    });
    staff = (await h.login('admin', ADMIN_PASSWORD)).token;
    A = await customer(h);
    await devicesOf(h, A.tenantId, specs);
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    stand.close();
  });

  async function paidOrder() {
    const p = await call('POST', '/order/package/create', staff, {
      name: `A ${randomUUID().slice(0, 5)}`,
      dataMb: 500,
      validityDays: 30,
      priceFen: 1234,
      onShelf: true,
    });
    const o = await call('POST', '/order/create', A.token, {
      clientRequestId: randomUUID(),
      lines: [{ iccid: specs[0].iccid, packageId: p.body_.data.id }],
    });
    expect(o.statusCode, o.body).toBe(200);
    return o.body_.data as { id: number; orderNo: string; totalFen: number; tenantId: number };
  }

  const notification = (o: { orderNo: string; totalFen: number; tenantId: number }) =>
    alipaySign(
      {
        app_id: '2021000000000001',
        charset: 'utf-8',
        gmt_payment: '2026-11-26 15:00:00',
        notify_id: randomUUID(),
        notify_time: '2026-11-26 15:00:01',
        notify_type: 'trade_status_sync',
        out_trade_no: o.orderNo,
        passback_params: encodeURIComponent(`tenant=${o.tenantId}`),
        seller_id: '2088000000000001',
        subject: 'A × 1',
        total_amount: fenToYuan(o.totalFen),
        trade_no: `2026112622001400000000${Math.floor(Math.random() * 1000)}`,
        trade_status: 'TRADE_SUCCESS',
        version: '1.0',
      },
      alipay.privateKey,
    );

  it("starts Alipay's page payment: a signed gateway URL with the server's amount and notify URL", async () => {
    const o = await paidOrder();
    const pay = await call('POST', '/order/pay', A.token, { id: o.id });
    expect(pay.statusCode, pay.body).toBe(200);
    expect(pay.body_.data.provider).toBe('alipay');
    const url = new URL(pay.body_.data.cashierUrl);
    expect(`${url.origin}${url.pathname}`).toBe(gatewayUrl);
    const q = Object.fromEntries(url.searchParams);
    expect(q.method).toBe('alipay.trade.page.pay');
    expect(q.notify_url).toBe('https://print.example.com/pay/notify/alipay');
    const biz = JSON.parse(q.biz_content);
    expect(biz).toMatchObject({ out_trade_no: o.orderNo, total_amount: '12.34' });
    // the request is signed with the application's key, as Alipay checks it
    const content = Object.keys(q)
      .filter((k) => k !== 'sign')
      .sort()
      .map((k) => `${k}=${q[k]}`)
      .join('&');
    expect(createVerify('RSA-SHA256').update(content).verify(app.publicKey, q.sign, 'base64')).toBe(true);
  });

  it('accepts a notification signed as Alipay signs it, and refuses a tampered one or a sandbox one', async () => {
    const o = await paidOrder();
    const before = await h.db
      .selectFrom('sims')
      .select('plan_total_mb')
      .where('iccid', '=', specs[0].iccid)
      .executeTakeFirstOrThrow();
    const signed = notification(o);
    const tampered = await notify('alipay', { ...signed, total_amount: '0.01' });
    expect(tampered.body).toBe('fail');
    const sandbox = await notify('sandbox', { ...signed, sign_type: 'HMAC-SHA256' });
    expect(sandbox.body).toBe('fail');
    expect((await h.call({ method: 'GET', url: '/pay/sandbox/cashier?trade=x' })).statusCode).toBe(404);
    const res = await notify('alipay', signed);
    expect(res.body).toBe('success');
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    const d = await call('GET', `/order/detail?id=${o.id}`, A.token);
    expect(d.body_.data).toMatchObject({ state: 'fulfilled', provider: 'alipay', tradeNo: signed.trade_no });
    const after = await h.db
      .selectFrom('sims')
      .select('plan_total_mb')
      .where('iccid', '=', specs[0].iccid)
      .executeTakeFirstOrThrow();
    expect(Number(after.plan_total_mb)).toBe(Number(before.plan_total_mb) + 500);
    const results = await h.db
      .selectFrom('payment_notifications')
      .select(['provider', 'result'])
      .where('order_no', '=', o.orderNo)
      .orderBy('id')
      .execute();
    expect(results).toEqual([
      { provider: 'alipay', result: 'bad-signature' },
      { provider: 'sandbox', result: 'provider-not-enabled' },
      { provider: 'alipay', result: 'fulfilled' },
    ]);
  });

  it("refunds through Alipay's refund call; a refusal by the gateway changes nothing", async () => {
    const o = await paidOrder();
    expect((await notify('alipay', notification(o))).body).toBe('success');
    refundCode = '40004';
    const refused = await call('POST', '/order/refund', staff, { id: o.id, reason: 'Duplicate purchase' });
    expect(refused.statusCode).toBe(502);
    expect(refused.body_.code).toBe(502);
    expect((await call('GET', `/order/detail?id=${o.id}`, A.token)).body_.data.state).toBe('fulfilled');
    refundCode = '10000';
    const ok = await call('POST', '/order/refund', staff, { id: o.id, reason: 'Duplicate purchase' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.body_.data.state).toBe('refunded');
    const last = calls.at(-1)!;
    expect(last.get('method')).toBe('alipay.trade.refund');
    expect(JSON.parse(last.get('biz_content')!)).toMatchObject({ out_trade_no: o.orderNo, refund_amount: '12.34' });
  });

  it('refuses to refund through Alipay an order the sandbox took: 409 naming the sandbox, nothing changed', async () => {
    // paid through the sandbox before this server was set up with Alipay
    const o = await paidOrder();
    await h.db
      .updateTable('orders')
      .set({ state: 'fulfilled', provider: 'sandbox', trade_no: `SBX${o.orderNo}`, paid_at: sql`now()` })
      .where('id', '=', o.id)
      .execute();
    const before = calls.length;
    const res = await call('POST', '/order/refund', staff, { id: o.id, reason: 'Duplicate purchase' });
    expect(res.statusCode).toBe(409);
    expect(res.body_.data).toMatchObject({ provider: 'sandbox' });
    expect(res.body_.msg).toContain('sandbox');
    // Alipay was never asked to refund a payment it did not take
    expect(calls.length).toBe(before);
    expect((await call('GET', `/order/detail?id=${o.id}`, A.token)).body_.data.state).toBe('fulfilled');
  });
});
