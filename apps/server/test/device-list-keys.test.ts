import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createHarness, type Harness } from './harness.ts';
import { customer, type Customer } from './device-helpers.ts';

/**
 * Migration 0037 (issue 17): the fleet list's keyword goes through a trigram index and `sort=dataLeft` through
 * a copy of the SIM's data left on the device. The rows and their order must stay what the queries before it
 * answered: each call here is compared with that SQL (the data left read through `sims` per device), also after
 * the writes that move a SIM's data left or a device's card.
 */
let h: Harness;
let c: Customer;
const N = 240;
beforeAll(async () => {
  h = await createHarness();
  c = await customer(h);
  const { rows } = await sql<{ id: number }>`
    INSERT INTO device_models (code, name, kind, paper_width_mm) VALUES ('KEYS58', 'Keys 58', 'printer', 58)
    RETURNING id`.execute(h.db);
  const modelId = rows[0].id;
  // names with shared parts, some empty; every 7th device without a card, every 11th naming a card not on file;
  // used MB in 13 values, so many devices tie on the data left
  await sql`
    INSERT INTO devices (sn, tenant_id, model_id, bind_key_hash, secret, bound_at, name, status, iccid)
    SELECT 'KY' || lpad(n::text, 6, '0'), ${c.tenantId}, ${modelId}, md5(n::text), md5(n::text || 's'),
      now() - n * interval '1 minute',
      CASE WHEN n % 5 = 0 THEN '' WHEN n % 3 = 0 THEN 'Shop ' || (n % 17) ELSE 'Printer ' || n END,
      CASE WHEN n % 2 = 0 THEN 'online' ELSE 'offline' END,
      CASE WHEN n % 7 = 0 THEN NULL ELSE 'KYC' || lpad(n::text, 8, '0') END
    FROM generate_series(1, ${N}) n`.execute(h.db);
  await sql`
    INSERT INTO sims (iccid, tenant_id, device_id, plan_total_mb, used_mb)
    SELECT iccid, tenant_id, id, CASE WHEN id % 19 = 0 THEN 0 ELSE 1024 END, (id % 13) * 10 + 0.25
    FROM devices WHERE tenant_id = ${c.tenantId} AND iccid IS NOT NULL AND (substr(sn, 3)::int) % 11 <> 0`.execute(
    h.db,
  );
});
afterAll(() => h.close());

const list = async (q: string) => {
  const res = await h.call({ method: 'GET', url: `/apiAdmin/device/list?${q}`, token: c.token });
  expect(res.statusCode, q).toBe(200);
  return res.body_.data as { list: Array<{ id: number; simDataLeftMb: number | null }>; total: number };
};

/** The page as the list's SQL before migration 0037 ordered it. */
async function before(dir: 'asc' | 'desc', status: string | null, pageNo: number, pageSize: number) {
  const { rows } = await sql<{ id: number }>`
    SELECT id FROM devices WHERE tenant_id = ${c.tenantId} AND (${status}::text IS NULL OR status = ${status})
    ORDER BY (SELECT x.plan_total_mb - x.used_mb FROM sims x WHERE x.iccid = devices.iccid) ${sql.raw(dir)} NULLS LAST,
      id ${sql.raw(dir)}
    LIMIT ${pageSize} OFFSET ${(pageNo - 1) * pageSize}`.execute(h.db);
  return rows.map((r) => Number(r.id));
}

async function sameDataLeftPages() {
  for (const dir of ['asc', 'desc'] as const)
    for (const status of [null, 'offline'])
      for (const [pageNo, pageSize] of [
        [1, 20],
        [2, 20],
        [3, 50],
        [5, 20],
        [7, 20],
        [13, 20],
        [1, 100],
        [3, 100],
      ]) {
        const q = `sort=dataLeft&order=${dir}&pageNo=${pageNo}&pageSize=${pageSize}${status ? `&status=${status}` : ''}`;
        const got = await list(q);
        expect(
          got.list.map((r) => r.id),
          q,
        ).toEqual(await before(dir, status, pageNo, pageSize));
      }
  // the copy on every device is the card's data left (none without a card on file)
  const { rows } = await sql<{ n: string }>`
    SELECT count(*) AS n FROM devices d LEFT JOIN sims s ON s.iccid = d.iccid
    WHERE d.tenant_id = ${c.tenantId} AND d.sim_left_mb IS DISTINCT FROM s.plan_total_mb - s.used_mb`.execute(h.db);
  expect(Number(rows[0].n)).toBe(0);
}

describe('fleet list keys (migration 0037)', () => {
  it('orders by the data left as the per-device lookup did: same rows, same order, ties by id, empty last', async () => {
    await sameDataLeftPages();
  });

  it('keeps the data left in step with the writes that move it', async () => {
    const ids = (
      await sql<{ id: number; iccid: string | null }>`
      SELECT id, iccid FROM devices WHERE tenant_id = ${c.tenantId} ORDER BY id`.execute(h.db)
    ).rows;
    // counters and plans (the roll-up, a top-up)
    await sql`UPDATE sims SET used_mb = used_mb + 7.5 WHERE device_id IN (${sql.join(ids.slice(0, 30).map((r) => r.id))})`.execute(
      h.db,
    );
    await sql`UPDATE sims SET plan_total_mb = 2048 WHERE device_id IN (${sql.join(ids.slice(30, 40).map((r) => r.id))})`.execute(
      h.db,
    );
    // a device takes another card, loses its card, names a card not on file yet
    const withCard = ids.filter((r) => r.iccid !== null);
    await sql`UPDATE devices SET iccid = ${withCard[1].iccid} WHERE id = ${withCard[0].id}`.execute(h.db);
    await sql`UPDATE devices SET iccid = NULL WHERE id = ${withCard[2].id}`.execute(h.db);
    await sql`UPDATE devices SET iccid = 'KYCNEW0001' WHERE id = ${withCard[3].id}`.execute(h.db);
    // the card comes on file; another card is deleted; one changes its ICCID
    await sql`INSERT INTO sims (iccid, tenant_id, plan_total_mb, used_mb) VALUES ('KYCNEW0001', ${c.tenantId}, 500, 1)`.execute(
      h.db,
    );
    await sql`DELETE FROM sims WHERE iccid = ${withCard[4].iccid}`.execute(h.db);
    await sql`UPDATE sims SET iccid = 'KYCNEW0002' WHERE iccid = ${withCard[5].iccid}`.execute(h.db);
    // an upsert as the gateway's roll-up writes it
    await sql`
      INSERT INTO sims AS s (iccid, tenant_id, used_mb) VALUES (${withCard[6].iccid}, ${c.tenantId}, 999)
      ON CONFLICT (iccid) DO UPDATE SET used_mb = excluded.used_mb`.execute(h.db);
    await sameDataLeftPages();
  });

  it('finds by a part of sn or name as ILIKE did, in the list order, with the same total', async () => {
    for (const keyword of ['12', '123', 'ky0001', 'printer 1', 'shop 1', 'SHOP', 'p', '%', '_', 'nothing']) {
      const { rows } = await sql<{ id: number }>`
        SELECT id FROM devices WHERE tenant_id = ${c.tenantId}
          AND (sn ILIKE ${`%${keyword.replace(/[\\%_]/g, '\\$&')}%`} OR name ILIKE ${`%${keyword.replace(/[\\%_]/g, '\\$&')}%`})
        ORDER BY bound_at DESC, id DESC`.execute(h.db);
      const expected = rows.map((r) => Number(r.id));
      const got = await list(`keyword=${encodeURIComponent(keyword)}&pageSize=100`);
      expect(got.total, keyword).toBe(expected.length);
      expect(
        got.list.map((r) => r.id),
        keyword,
      ).toEqual(expected.slice(0, 100));
    }
  });

  it('lets the planner walk the data-left index for a page (the keyword plan at scale: bench/device-list.ts --explain)', async () => {
    await h.db.connection().execute(async (db) => {
      const plan = async (query: string) => {
        const { rows } = await sql<{ 'QUERY PLAN': string }>`${sql.raw(query)}`.execute(db);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      };
      await sql`ANALYZE devices`.execute(db);
      await sql`SET enable_seqscan = off`.execute(db);
      try {
        expect(
          await plan(
            `EXPLAIN SELECT id FROM devices WHERE tenant_id = ${c.tenantId} AND sim_left_mb IS NOT NULL ORDER BY sim_left_mb DESC, id DESC LIMIT 20`,
          ),
        ).toContain('devices_tenant_sim_left_idx');
      } finally {
        await sql`RESET enable_seqscan`.execute(db);
      }
    });
  });
});
