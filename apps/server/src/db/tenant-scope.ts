import type {
  DeleteQueryBuilder,
  InsertObject,
  Kysely,
  SelectQueryBuilder,
  UpdateQueryBuilder,
  DeleteResult,
  UpdateResult,
} from 'kysely';
import type { Database, TenantTable } from './schema.ts';

/**
 * The only way handlers reach tenant-owned tables: every select, update and delete is pinned to one
 * tenant, and every insert gets its tenant_id, so no handler can forget the filter (DESIGN §3).
 * A row of another tenant is simply not found, which the caller answers with 404.
 */
export class TenantScope {
  constructor(
    /** The database, or the transaction this scope runs in (then every query of the scope is part of it). */
    readonly db: Kysely<Database>,
    readonly tenantId: number,
  ) {}

  /**
   * Runs `work` in one transaction with a scope of the same tenant on it: its queries are pinned to the tenant
   * as everywhere else, and commit or roll back together (`tx.db` reaches the shared tables in the same
   * transaction). Inside a transaction already, `work` joins it.
   */
  transaction<T>(work: (tx: TenantScope) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return work(this);
    return this.db.transaction().execute((trx) => work(new TenantScope(trx, this.tenantId)));
  }

  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- Kysely's own type of a query that selects nothing yet
  selectFrom<T extends TenantTable>(table: T): SelectQueryBuilder<Database, T, {}> {
    return (this.db.selectFrom(table) as any).where(`${table}.tenant_id`, '=', this.tenantId);
  }

  updateTable<T extends TenantTable>(table: T): UpdateQueryBuilder<Database, T, T, UpdateResult> {
    return (this.db.updateTable(table) as any).where(`${table}.tenant_id`, '=', this.tenantId);
  }

  deleteFrom<T extends TenantTable>(table: T): DeleteQueryBuilder<Database, T, DeleteResult> {
    return (this.db.deleteFrom(table) as any).where(`${table}.tenant_id`, '=', this.tenantId);
  }

  /** One row, or several in one statement. */
  insertInto<T extends TenantTable>(
    table: T,
    values: Omit<InsertObject<Database, T>, 'tenant_id'> | readonly Omit<InsertObject<Database, T>, 'tenant_id'>[],
  ) {
    const pinned = (v: object) => ({ ...v, tenant_id: this.tenantId }) as unknown as InsertObject<Database, T>;
    return this.db.insertInto(table).values(Array.isArray(values) ? values.map(pinned) : pinned(values as object));
  }
}
