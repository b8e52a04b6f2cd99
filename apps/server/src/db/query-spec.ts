/**
 * SQL snapshots: every statement a repository sends to PostgreSQL is written, compiled, to a checked-in file
 * (`src/queries/<module>.sql`), so a reviewer sees each statement and a changed statement shows up in the diff.
 *
 * How to add a spec for a repository (`modules/<m>/repository.ts`, or a file in `modules/<m>/repository/`):
 *
 *   import { defineQueries, skip } from '../../db/query-spec.ts';
 *
 *   export class NoticeRepository extends Repository { ... }   // db/repository.ts: db, scope(), transaction(), audit()
 *
 *   // one export per repository class, in the class's own file (any export name; `queries` when there is one)
 *   export const noticeQueries = defineQueries(NoticeRepository, {
 *     // every public method: one or more argument lists of realistic sample values
 *     listForReader: [[{ id: 7, tenantId: 3, tenantKind: 'enterprise' }, { pageNo: 2, pageSize: 20 }]],
 *     // several lists when the method builds different statements (a filter given or not)
 *     manageList: [[{ pageNo: 1, pageSize: 20 }], [{ pageNo: 1, pageSize: 20, state: 'draft', keyword: 'x' }]],
 *     // arguments that need the database (a TenantScope, a repository bound to it): a function of it
 *     clean: [{ args: (db) => [new TenantScope(db, 3), ['k']] }],
 *     // the recording driver answers every statement with no rows; give rows when the method branches on them
 *     // (one list of rows per statement, in order; statements after the list get none)
 *     publish: [{ args: [12], results: [[{ id: 12, state: 'draft' }]] }],
 *     // a method that sends no statement of its own, with the reason
 *     sendLater: skip('only schedules; its statements run later, in the jobs listed above'),
 *   });
 *
 * Then run `npm run sql:snapshot` and commit `src/queries/<module>.sql` with the change. The check in `npm test`
 * (test/sql-snapshots.test.ts) fails when the file differs from what the specs give, when a public method of a
 * repository has no entry (TypeScript already asks for every one), or when a repository class has no spec.
 *
 * Rules for samples: fixed values only (no `new Date()` without an argument: the clock is frozen at
 * 2026-01-01T00:00:00Z while recording, but a sample should say the date it means); ids and names that read
 * like real ones. A method that throws after an empty result keeps what it sent before, noted in the file.
 * Private helpers (TypeScript `private`, `#name`, module functions) need no entry: their statements appear
 * under the public methods that use them.
 */
import type { Db } from './database.ts';
import type { RepositoryBase } from './repository.ts';

/** The public methods of a repository (TypeScript's `keyof` leaves private and protected members out). */
export type QueryMethods<R> = Exclude<
  {
    [K in keyof R]: R[K] extends (...args: any[]) => unknown ? K : never;
  }[keyof R] &
    string,
  RepositoryBase
>;

type ArgsOf<F> = F extends (...args: infer A) => unknown ? A : never;

/** One sample call: its arguments, or the arguments (maybe made from the recording database) and fake rows. */
export type QueryCall<A extends unknown[]> =
  | A
  | {
      args: A | ((db: Db) => A);
      /** The rows the recording driver answers, one list per statement in order (default: none). */
      results?: readonly (readonly Record<string, unknown>[])[];
    };

/** A method left out of the snapshot, with the reason (it sends no statement of its own). */
export interface QuerySkip {
  readonly skip: string;
}

export const skip = (reason: string): QuerySkip => ({ skip: reason });

export type QueryCalls<R> = { [K in QueryMethods<R>]: readonly QueryCall<ArgsOf<R[K]>>[] | QuerySkip };

/** What the snapshot of one repository class is made from. */
export interface QuerySpec<R = any> {
  readonly kind: 'query-spec';
  /** The class, by its name in the snapshot's headers. */
  readonly repository: abstract new (...args: any[]) => R;
  readonly calls: QueryCalls<R>;
  /** Builds the repository on the recording database (default: `new Repository(db)`). */
  readonly create: (db: Db) => R;
}

export function defineQueries<R>(
  repository: abstract new (...args: any[]) => R,
  calls: QueryCalls<R>,
  create?: (db: Db) => R,
): QuerySpec<R> {
  const build = create ?? ((db: Db) => new (repository as unknown as new (db: Db) => R)(db));
  return { kind: 'query-spec', repository, calls, create: build };
}

export const isQuerySpec = (v: unknown): v is QuerySpec =>
  typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'query-spec';
