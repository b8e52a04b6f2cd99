import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, migrate, type Db } from '../src/db/database.ts';
import { TenantScope } from '../src/db/tenant-scope.ts';
import { createTestDatabase } from './harness.ts';

/** A tenant's scope inside a transaction (DESIGN §3): still pinned to its tenant, and one unit of work. */
let db: Db;
let a: number;
let b: number;
let groupOfA: number;
let groupOfB: number;

const tenant = async (name: string) =>
  (await db.insertInto('tenants').values({ kind: 'enterprise', name }).returning('id').executeTakeFirstOrThrow()).id;
const group = async (tenantId: number, name: string) =>
  (
    await db
      .insertInto('device_groups')
      .values({ tenant_id: tenantId, name, parent_id: null })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
const groups = async (tenantId: number) =>
  (await db.selectFrom('device_groups').select('name').where('tenant_id', '=', tenantId).orderBy('name').execute()).map(
    (g) => g.name,
  );

beforeAll(async () => {
  db = createDb(await createTestDatabase(), 4);
  await migrate(db);
  a = await tenant('scope-a');
  b = await tenant('scope-b');
  groupOfA = await group(a, 'a-1');
  groupOfB = await group(b, 'b-1');
});
afterAll(() => db?.destroy());

describe('a tenant scope inside a transaction', () => {
  it("neither reads nor changes another tenant's rows, and what it writes belongs to its tenant", async () => {
    const seen = await new TenantScope(db, a).transaction(async (tx) => {
      expect(tx.db.isTransaction).toBe(true);
      const read = await tx.selectFrom('device_groups').select(['device_groups.id', 'device_groups.name']).execute();
      const byId = await tx
        .selectFrom('device_groups')
        .select('device_groups.id')
        .where('device_groups.id', '=', groupOfB)
        .executeTakeFirst();
      const updated = await tx
        .updateTable('device_groups')
        .set({ name: 'taken' })
        .where('device_groups.id', '=', groupOfB)
        .executeTakeFirst();
      const deleted = await tx.deleteFrom('device_groups').where('device_groups.id', '=', groupOfB).executeTakeFirst();
      await tx.insertInto('device_groups', { name: 'a-2', parent_id: null }).execute();
      return { read, byId, updated: Number(updated.numUpdatedRows), deleted: Number(deleted.numDeletedRows) };
    });
    expect(seen.read).toEqual([{ id: groupOfA, name: 'a-1' }]);
    expect(seen.byId).toBeUndefined();
    expect(seen.updated).toBe(0);
    expect(seen.deleted).toBe(0);
    expect(await groups(b)).toEqual(['b-1']);
    expect(await groups(a)).toEqual(['a-1', 'a-2']);
  });

  it('rolls back as a whole: nothing it did stays when the work fails, and nothing shows before the commit', async () => {
    let outsideBeforeCommit: string[] = [];
    const failed = new TenantScope(db, a).transaction(async (tx) => {
      await tx.insertInto('device_groups', { name: 'a-3', parent_id: null }).execute();
      await tx
        .updateTable('device_groups')
        .set({ name: 'a-1 renamed' })
        .where('device_groups.id', '=', groupOfA)
        .execute();
      // a nested scoped transaction joins this one
      await tx.transaction(async (inner) =>
        inner.deleteFrom('device_groups').where('device_groups.name', '=', 'a-2').execute(),
      );
      expect(
        (await tx.selectFrom('device_groups').select('name').orderBy('name').execute()).map((g) => g.name),
      ).toEqual(['a-1 renamed', 'a-3']);
      outsideBeforeCommit = await groups(a);
      throw new Error('the work fails after its writes');
    });
    await expect(failed).rejects.toThrow('the work fails after its writes');
    expect(outsideBeforeCommit).toEqual(['a-1', 'a-2']);
    expect(await groups(a)).toEqual(['a-1', 'a-2']);
    expect(await groups(b)).toEqual(['b-1']);
  });
});
