import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { ADMIN_PASSWORD, createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, type Customer } from './device-helpers.ts';

/**
 * Staff read every tenant's orders, but a customer's pending order is paid and canceled by the customer only: the
 * platform admin (who holds flowRate:buy too) is answered as another tenant would be, and the order stays as it was.
 */
describe("staff and a customer's pending order", () => {
  let h: Harness;
  let staff: string;
  let A: Customer;
  let packageId: number;
  const specs = makeSpecs(1, { seed: 282, prefix: 'OST' });

  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: unknown) =>
    h.call({ method, url: `/apiAdmin${url}`, token, ...(payload === undefined ? {} : { payload: payload as object }) });
  const orderRow = (id: number) =>
    h.db
      .selectFrom('orders')
      .select(['state', 'provider', 'canceled_at', 'closed_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const logged = (id: number) =>
    h.db
      .selectFrom('audit_log')
      .select(['action', 'user_id'])
      .where('resource', '=', 'order')
      .where('resource_id', '=', String(id))
      .orderBy('id')
      .execute();
  const newOrder = async () => {
    const res = await call('POST', '/order/create', A.token, {
      clientRequestId: randomUUID(),
      lines: [{ iccid: specs[0].iccid, packageId }],
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.body_.data.id as number;
  };

  beforeAll(async () => {
    h = await createHarness();
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    staff = (await h.login('admin', ADMIN_PASSWORD)).token;
    A = await customer(h);
    await devicesOf(h, A.tenantId, specs);
    const pkg = await call('POST', '/order/package/create', staff, {
      name: 'Monthly',
      dataMb: 1024,
      validityDays: 30,
      priceFen: 1990,
      onShelf: true,
    });
    expect(pkg.statusCode, pkg.body).toBe(200);
    packageId = pkg.body_.data.id;
  }, 60_000);

  afterAll(async () => {
    await h?.close();
  });

  it('lets staff read the order, but not pay or cancel it (404 as for another tenant); nothing changes', async () => {
    const id = await newOrder();
    const before = await orderRow(id);
    expect((await call('GET', `/order/detail?id=${id}`, staff)).statusCode).toBe(200);
    expect(
      (await call('GET', `/order/list?tenantId=${A.tenantId}`, staff)).body_.data.list.map((o: { id: number }) => o.id),
    ).toContain(id);

    const pay = await call('POST', '/order/pay', staff, { id });
    expect(pay.statusCode).toBe(404);
    expect(pay.body_.code).toBe(404);
    const cancel = await call('POST', '/order/cancel', staff, { id });
    expect(cancel.statusCode).toBe(404);
    expect(cancel.body_.code).toBe(404);

    expect(await orderRow(id)).toEqual(before);
    expect(before).toMatchObject({ state: 'pending', provider: null, canceled_at: null });
    expect((await logged(id)).map((r) => r.action)).toEqual(['order.create']);
  });

  it('still lets the customer pay and cancel it', async () => {
    const id = await newOrder();
    const pay = await call('POST', '/order/pay', A.token, { id });
    expect(pay.statusCode, pay.body).toBe(200);
    expect(pay.body_.data.provider).toBe('sandbox');
    const cancel = await call('POST', '/order/cancel', A.token, { id });
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect(cancel.body_.data.state).toBe('canceled');
    expect((await logged(id)).map((r) => r.action)).toEqual(['order.create', 'order.pay', 'order.cancel']);
  });
});
