import type { DeleteQueryBuilder, InsertObject, SelectQueryBuilder, UpdateQueryBuilder, DeleteResult, UpdateResult } from 'kysely';
import type { Database, TenantTable } from './schema.ts';
import type { Db } from './database.ts';

/**
 * The only way handlers reach tenant-owned tables: every select, update and delete is pinned to one
 * tenant, and every insert gets its tenant_id, so no handler can forget the filter (DESIGN §3).
 * A row of another tenant is simply not found, which the caller answers with 404.
 */
export class TenantScope {
  constructor(
    readonly db: Db,
    readonly tenantId: number,
  ) {}

  selectFrom<T extends TenantTable>(table: T): SelectQueryBuilder<Database, T, {}> {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return (this.db.selectFrom(table) as any).where(`${table}.tenant_id`, '=', this.tenantId);
  }

  updateTable<T extends TenantTable>(table: T): UpdateQueryBuilder<Database, T, T, UpdateResult> {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return (this.db.updateTable(table) as any).where(`${table}.tenant_id`, '=', this.tenantId);
  }

  deleteFrom<T extends TenantTable>(table: T): DeleteQueryBuilder<Database, T, DeleteResult> {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return (this.db.deleteFrom(table) as any).where(`${table}.tenant_id`, '=', this.tenantId);
  }

  insertInto<T extends TenantTable>(table: T, values: Omit<InsertObject<Database, T>, 'tenant_id'>) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return this.db.insertInto(table).values({ ...(values as any), tenant_id: this.tenantId });
  }
}
