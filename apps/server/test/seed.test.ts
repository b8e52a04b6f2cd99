import { afterAll, describe, expect, it } from 'vitest';
import { createDb, migrate, type Db } from '../src/db/database.ts';
import { seed } from '../src/seed.ts';
import { createTestDatabase } from './harness.ts';

/**
 * Nodes started together on a fresh database (docs/deploy.md; e2e/cluster.e2e.ts starts three at once) each run
 * the seed: one makes the platform tenant, its Admin role and `admin`, the others find them made.
 */
const pools: Db[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.destroy()));
});

describe('the seed', () => {
  it('seeds once when three nodes start together on an empty database', async () => {
    const url = await createTestDatabase();
    // a pool per node, as separate processes have
    for (let i = 0; i < 3; i++) pools.push(createDb(url, 2));
    await migrate(pools[0]);
    const results = await Promise.allSettled(pools.map((db) => seed(db, 'SeedTest1234')));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    const db = pools[0];
    expect(await db.selectFrom('tenants').select('id').where('kind', '=', 'platform').execute()).toHaveLength(1);
    expect(await db.selectFrom('users').select('id').where('username', '=', 'admin').execute()).toHaveLength(1);
    const roles = await db.selectFrom('user_roles').select('role_id').execute();
    expect(roles).toHaveLength(1);
  });
});
