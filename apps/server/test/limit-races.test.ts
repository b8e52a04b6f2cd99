import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FENCE_MAX_PER_TENANT } from '@cpc/contracts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { ADMIN_PASSWORD, createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, type Customer } from './device-helpers.ts';

/**
 * Limits that are checked and then acted on, fired at all at once: each limit holds when 10–20 requests arrive
 * together (each request its own transaction on real PostgreSQL; `inject` does not serialise them).
 */
let h: Harness;
let staff: string;
let A: Customer;
const specs = makeSpecs(3, { seed: 281, prefix: 'LRA' });
let deviceIds: number[] = [];

const call = (method: 'GET' | 'POST', url: string, token: string, payload?: unknown) =>
  h.call({ method, url: `/apiAdmin${url}`, token, ...(payload === undefined ? {} : { payload: payload as object }) });
const codes = (answers: { statusCode: number }[]) =>
  answers.reduce<Record<number, number>>((m, a) => ({ ...m, [a.statusCode]: (m[a.statusCode] ?? 0) + 1 }), {});

beforeAll(async () => {
  h = await createHarness();
  staff = (await h.login('admin', ADMIN_PASSWORD)).token;
  A = await customer(h);
  const ids = await devicesOf(h, A.tenantId, specs);
  deviceIds = specs.map((s) => ids.get(s.sn)!);
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe('the per-SIM limit of a traffic package', () => {
  async function newPackage(perSimLimit: number) {
    const res = await call('POST', '/order/package/create', staff, {
      name: `Limited ${randomUUID().slice(0, 6)}`,
      dataMb: 1024,
      validityDays: 30,
      priceFen: 990,
      onShelf: true,
      perSimLimit,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.body_.data.id as number;
  }
  const liveLines = async (iccid: string, packageId: number) =>
    (
      await h.db
        .selectFrom('order_lines')
        .innerJoin('orders', 'orders.id', 'order_lines.order_id')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('order_lines.iccid', '=', iccid)
        .where('order_lines.package_id', '=', packageId)
        .where('orders.state', 'in', ['pending', 'paid', 'fulfilled'])
        .executeTakeFirstOrThrow()
    ).n;
  const create = (iccids: string[], packageId: number) =>
    call('POST', '/order/create', A.token, {
      clientRequestId: randomUUID(),
      lines: iccids.map((iccid) => ({ iccid, packageId })),
    });

  it('sells a package with perSimLimit 1 once to a SIM when 10 orders arrive at once', async () => {
    const pkg = await newPackage(1);
    const answers = await Promise.all(Array.from({ length: 10 }, () => create([specs[0].iccid], pkg)));
    expect(codes(answers)).toEqual({ 200: 1, 400: 9 });
    for (const a of answers.filter((x) => x.statusCode === 400))
      expect(a.body_.data.fields[0]).toMatchObject({ field: 'lines.0.packageId', key: 'order.perSimLimit' });
    expect(await liveLines(specs[0].iccid, pkg)).toBe(1);
  });

  it('holds a limit of 3 over 15 concurrent orders, some of them for two SIMs', async () => {
    const pkg = await newPackage(3);
    const answers = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        create(i % 3 === 0 ? [specs[1].iccid, specs[2].iccid] : [specs[i % 2 ? 1 : 2].iccid], pkg),
      ),
    );
    expect(answers.every((a) => a.statusCode === 200 || a.statusCode === 400)).toBe(true);
    expect(await liveLines(specs[1].iccid, pkg)).toBe(3);
    expect(await liveLines(specs[2].iccid, pkg)).toBe(3);
  });

  it('still answers one order for concurrent submits of one client request id', async () => {
    const pkg = await newPackage(1);
    const body = { clientRequestId: randomUUID(), lines: [{ iccid: specs[0].iccid, packageId: pkg }] };
    const answers = await Promise.all(Array.from({ length: 8 }, () => call('POST', '/order/create', A.token, body)));
    expect(codes(answers)).toEqual({ 200: 8 });
    expect(new Set(answers.map((a) => a.body_.data.id)).size).toBe(1);
  });
});

describe('one customization profile per device', () => {
  it('keeps one assignment when 10 assignments of one device to different profiles arrive at once', async () => {
    const profiles: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await call('POST', '/systemCustom/profile/create', A.token, { name: `Race ${i}` });
      expect(res.statusCode, res.body).toBe(200);
      profiles.push(res.body_.data.id);
    }
    const answers = await Promise.all(
      profiles.map((id) => call('POST', '/systemCustom/profile/assign', A.token, { id, deviceIds: [deviceIds[0]] })),
    );
    expect(codes(answers)).toEqual({ 200: 10 });
    const rows = await h.db
      .selectFrom('custom_profile_assignments')
      .select('profile_id')
      .where('device_id', '=', deviceIds[0])
      .execute();
    expect(rows).toHaveLength(1);
    expect(profiles).toContain(Number(rows[0].profile_id));
    // and the same assignment twice at once (a double click)
    const twice = await Promise.all(
      [0, 1, 2].map(() =>
        call('POST', '/systemCustom/profile/assign', A.token, { id: profiles[0], deviceIds: [deviceIds[1]] }),
      ),
    );
    expect(codes(twice)).toEqual({ 200: 3 });
  });

  it('deletes a profile while its devices are being given another, without a deadlock', async () => {
    for (let round = 0; round < 5; round++) {
      const [old, ...fresh] = await Promise.all(
        [0, 1, 2, 3].map(async (i) => {
          const res = await call('POST', '/systemCustom/profile/create', A.token, { name: `Swap ${round}.${i}` });
          return res.body_.data.id as number;
        }),
      );
      expect(
        (await call('POST', '/systemCustom/profile/assign', A.token, { id: old, deviceIds: [deviceIds[2]] }))
          .statusCode,
      ).toBe(200);
      const answers = await Promise.all([
        ...fresh.map((id) => call('POST', '/systemCustom/profile/assign', A.token, { id, deviceIds: [deviceIds[2]] })),
        call('POST', '/systemCustom/profile/delete', A.token, { id: old }),
      ]);
      expect(codes(answers)).toEqual({ 200: 4 });
    }
  });
});

describe('the fences of a tenant', () => {
  it(`holds the cap of ${FENCE_MAX_PER_TENANT} when 15 fences are created at once`, async () => {
    const C = await customer(h);
    const ring = [
      [121.47, 31.23],
      [121.48, 31.23],
      [121.48, 31.24],
      [121.47, 31.24],
      [121.47, 31.23],
    ];
    const shape = JSON.stringify({ type: 'polygon', ring });
    await h.db
      .insertInto('fences')
      .values(
        Array.from({ length: FENCE_MAX_PER_TENANT - 5 }, (_, i) => ({
          tenant_id: C.tenantId,
          name: `pre ${i}`,
          shape,
          min_lng: 121.47,
          min_lat: 31.23,
          max_lng: 121.48,
          max_lat: 31.24,
        })),
      )
      .execute();
    const answers = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        call('POST', '/fence/create', C.token, { name: `burst ${i}`, shape: { type: 'polygon', ring } }),
      ),
    );
    expect(codes(answers)).toEqual({ 200: 5, 409: 10 });
    expect((await call('GET', '/fence/list?pageSize=1', C.token)).body_.data.total).toBe(FENCE_MAX_PER_TENANT);
  });
});
