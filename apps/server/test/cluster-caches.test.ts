import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '@cpc/contracts';
import { createDb, type Db } from '../src/db/database.ts';
import { DeviceDirectory } from '../src/plugins/mqtt/device-directory.ts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { customer, devicesOf, subAccountWith, type Customer } from './device-helpers.ts';
import { createHarness, type Harness } from './harness.ts';
import { createKey, openCall } from './open-helpers.ts';
import { secondNode, type Node } from './second-node.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Each per-node cache of docs/cluster-state.md against its written bound: a change made through node A is seen
 * by node B within the bound (and, where B serves a cached value, it does so until the bound).
 */
describe('caches across two nodes', () => {
  let h: Harness;
  let b: Node;
  let c: Customer;
  /** Node B as openCall sees a harness: only its `call` is used. */
  let onB: Harness;

  beforeAll(async () => {
    h = await createHarness();
    b = await secondNode(h);
    c = await customer(h);
    onB = { ...h, call: b.call };
  });
  afterAll(async () => {
    await b?.close();
    await h?.close();
  });

  it('open-API key rows: a rotation or a disabling on A holds on B from the next call (bound 0)', async () => {
    const key = await createKey(h, c.token);
    // B reads the key row and keeps it for its checks before the body
    expect((await openCall(onB, key, { url: '/devices' })).statusCode).toBe(200);

    const rotated = await h.call({
      method: 'POST',
      url: '/apiAdmin/integration/key/rotate',
      token: c.token,
      payload: { id: key.id },
    });
    const secret: string = rotated.body_.data.secret;
    const old = await openCall(onB, key, { url: '/devices' });
    expect(old.statusCode).toBe(401);
    expect(old.body_.data.reason).toBe('bad_signature');
    expect((await openCall(onB, { ...key, secret }, { url: '/devices' })).statusCode).toBe(200);

    await h.call({
      method: 'POST',
      url: '/apiAdmin/integration/key/state',
      token: c.token,
      payload: { id: key.id, state: 'disabled' },
    });
    const disabled = await openCall(onB, { ...key, secret }, { url: '/devices' });
    expect(disabled.statusCode).toBe(401);
    expect(disabled.body_.data.reason).toBe('app_disabled');
  });

  it('permissions: a role changed through A is what B enforces at the next request (read per request)', async () => {
    const sub = await subAccountWith(h, c.tenantId, [PERMISSIONS.logView]);
    const list = { method: 'GET' as const, url: '/apiAdmin/system/log/list?pageSize=5', token: sub };
    expect((await b.call(list)).statusCode).toBe(200);
    const role = await h.db
      .selectFrom('roles')
      .select(['id', 'name', 'code'])
      .where('tenant_id', '=', c.tenantId)
      .orderBy('id', 'desc') // the sub-account's own, the tenant's newest
      .executeTakeFirstOrThrow();
    const edit = await h.call({
      method: 'POST',
      url: '/apiAdmin/system/role/update',
      token: c.token,
      payload: { id: role.id, name: role.name, code: 'CLUSTER_ROLE', permissions: [PERMISSIONS.printView] },
    });
    expect(edit.statusCode, edit.body).toBe(200);
    expect((await b.call(list)).statusCode).toBe(403);
  });

  it('cluster-once jobs: each lock held by one node, the jobs of both nodes between them', async () => {
    const both = () => [...h.app.clusterLocks.holding(), ...b.app.clusterLocks.holding()];
    const t0 = Date.now();
    while (!both().includes('push: start') && Date.now() - t0 < 10_000) await sleep(200);
    expect(both()).toContain('push: start');
    expect(new Set(both()).size).toBe(both().length);
    // PostgreSQL's view agrees (read again if a node took another job's lock meanwhile)
    for (let tries = 0; ; tries++) {
      const before = both().length;
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid)
        WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = 'cpc-cluster-locks'
          AND a.datname = current_database()`.execute(h.db);
      if (both().length !== before && tries < 5) continue;
      expect(rows[0].n).toBe(before);
      break;
    }
  });

  describe('device directory (sn → id, secret) with short bounds', () => {
    let dbA: Db;
    let dbB: Db;
    beforeAll(() => {
      dbA = createDb(h.config.DATABASE_URL!, 2);
      dbB = createDb(h.config.DATABASE_URL!, 2);
    });
    afterAll(async () => {
      await dbA.destroy();
      await dbB.destroy();
    });

    it('B serves its copy until the bound, then what A wrote; a new device within the miss bound', async () => {
      const ttl = { ttlMs: 600, missTtlMs: 300 };
      const a = new DeviceDirectory(dbA, ttl);
      const onNodeB = new DeviceDirectory(dbB, ttl);
      const [spec] = makeSpecs(1, { prefix: `CS${Date.now().toString(36).toUpperCase()}` });
      const sn = spec.sn;

      // not registered yet: B remembers the miss
      expect(await onNodeB.get(sn)).toBeNull();
      await devicesOf(h, c.tenantId, [spec]);
      expect(await a.get(sn)).not.toBeNull();
      expect(await onNodeB.get(sn)).toBeNull(); // within the miss bound
      await sleep(ttl.missTtlMs + 50);
      const seen = await onNodeB.get(sn);
      expect(seen).not.toBeNull();

      // a secret changed (by any node): B keeps the one it read until its bound, then reads the new one
      await dbA.updateTable('devices').set({ secret: 'rotated-secret' }).where('sn', '=', sn).execute();
      expect((await a.get(sn))?.secret).toBe(seen!.secret); // A's copy too: the bound holds for every node
      expect((await onNodeB.get(sn))?.secret).toBe(seen!.secret);
      await sleep(ttl.ttlMs + 50);
      expect((await onNodeB.get(sn))?.secret).toBe('rotated-secret');
    });

    it('reads a talking device again before its bound runs out, in one grouped read, never in its path', async () => {
      const ttl = { ttlMs: 2000, missTtlMs: 300 };
      // the statements this node's directory runs, counted as Kysely compiles them
      let queries = 0;
      const counted = dbB.withPlugin({
        transformQuery: (a) => {
          queries++;
          return a.node;
        },
        transformResult: async (a) => a.result,
      });
      const statementsReading = async (work: () => Promise<unknown>) => {
        const before = queries;
        await work();
        return queries - before;
      };
      const b = new DeviceDirectory(counted, ttl);
      const specs = makeSpecs(3, { prefix: `CR${Date.now().toString(36).toUpperCase()}` });
      await devicesOf(h, c.tenantId, specs);
      const first = await Promise.all(specs.map((s) => b.get(s.sn)));
      await dbA
        .updateTable('devices')
        .set({ secret: 'rotated-early' })
        .where(
          'sn',
          'in',
          specs.map((s) => s.sn),
        )
        .execute();
      // in the first half of the bound: the copy, and nothing read again
      await b.refreshed();
      expect((await b.get(specs[0].sn))?.secret).toBe(first[0]!.secret);
      // in the second half: still the copy at once, and all three read again together
      await sleep(ttl.ttlMs / 2 + 50);
      const reads = await statementsReading(() =>
        Promise.all(specs.map((s) => b.get(s.sn))).then(async (got) => {
          expect(got.map((d) => d?.secret)).toEqual(first.map((d) => d?.secret));
          await b.refreshed();
        }),
      );
      expect(reads).toBe(1);
      expect((await b.get(specs[1].sn))?.secret).toBe('rotated-early');
      // past the first bound, the early read's answer is served from the copy: no read in the path
      await sleep(ttl.ttlMs / 2);
      expect(
        await statementsReading(async () => expect((await b.get(specs[2].sn))?.secret).toBe('rotated-early')),
      ).toBe(0);
      await b.stop();
    });
  });
});
