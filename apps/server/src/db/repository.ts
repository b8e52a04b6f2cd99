import { audit, type AuditEntry } from '../lib/audit.ts';
import type { Db } from './database.ts';
import { TenantScope } from './tenant-scope.ts';

/**
 * What every module's repository shares (docs/architecture.md): the database it runs on, or the transaction it is
 * bound to; the tenant scope of an account; a transaction that hands back a repository of its own class bound to
 * it; the system log written in that transaction. A repository's own statements are its subclass's methods, and
 * only those are snapshotted (these send nothing of their own).
 */
export abstract class Repository {
  constructor(protected readonly db: Db) {}

  /** Every tenant-owned statement goes through the account's scope. */
  protected scope(tenantId: number): TenantScope {
    return new TenantScope(this.db, tenantId);
  }

  /** Runs `work` in one transaction with a repository bound to it (inside a transaction already: joins it). */
  transaction<R extends Repository, T>(this: R, work: (repo: R) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return work(this);
    const Bound = this.constructor as new (db: Db) => R;
    return this.db.transaction().execute((trx) => work(new Bound(trx)));
  }

  /** A system-log entry, in this repository's transaction when it is bound to one. */
  audit(entry: AuditEntry): Promise<void> {
    return audit(this.db, entry);
  }
}

/**
 * The methods every repository has from `Repository` (a repository may refine them): they send no statement of
 * their own, or the system log's, so no spec lists them.
 */
export const REPOSITORY_BASE = ['transaction', 'audit'] as const;
export type RepositoryBase = (typeof REPOSITORY_BASE)[number];
