import { createHash } from 'node:crypto';
import { Kysely, Migrator, PostgresDialect, sql, type Migration } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';
import * as m0001 from './migrations/0001-accounts.ts';
import * as m0002 from './migrations/0002-profile.ts';
import * as m0003 from './migrations/0003-devices.ts';
import * as m0004 from './migrations/0004-gateway.ts';
import * as m0005 from './migrations/0005-device-api.ts';
import * as m0006 from './migrations/0006-printing.ts';
import * as m0007 from './migrations/0007-printing-2.ts';
import * as m0008 from './migrations/0008-devices-2.ts';
import * as m0009 from './migrations/0009-device-list.ts';
import * as m0010 from './migrations/0010-rate-counters.ts';
import * as m0011 from './migrations/0011-administration.ts';
import * as m0014 from './migrations/0014-menu.ts';
import * as m0015 from './migrations/0015-system-log.ts';
import * as m0016 from './migrations/0016-social-login.ts';
import * as m0017 from './migrations/0017-sim-usage.ts';
import * as m0018 from './migrations/0018-orders.ts';
import * as m0019 from './migrations/0019-work-orders.ts';
import * as m0020 from './migrations/0020-notices.ts';
import * as m0021 from './migrations/0021-inbox.ts';
import * as m0022 from './migrations/0022-workbench.ts';
import * as m0023 from './migrations/0023-work-order-more.ts';
import * as m0024 from './migrations/0024-packages.ts';
import * as m0026 from './migrations/0026-upgrade.ts';
import * as m0027 from './migrations/0027-application.ts';
import * as m0028 from './migrations/0028-file-acquisition.ts';
import * as m0029 from './migrations/0029-ai-library.ts';
import * as m0030 from './migrations/0030-fence.ts';
import * as m0031 from './migrations/0031-system-custom.ts';
import * as m0032 from './migrations/0032-push.ts';
import * as m0033 from './migrations/0033-sim-query.ts';
import * as m0035 from './migrations/0035-payload-replays.ts';
import * as m0037 from './migrations/0037-device-list-keys.ts';
import * as m0038 from './migrations/0038-print-sweep-keys.ts';
import * as m0039 from './migrations/0039-device-keyword-stats.ts';
import * as m0040 from './migrations/0040-scope-signals.ts';

export type Db = Kysely<Database>;

// bigint columns come back as numbers: ids and counts stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

/** The versioned migrations, in order. A landed migration is never edited; add a new one. */
const migrations: Record<string, Migration> = {
  '0001-accounts': m0001,
  '0002-profile': m0002,
  '0003-devices': m0003,
  '0004-gateway': m0004,
  '0005-device-api': m0005,
  '0006-printing': m0006,
  '0007-printing-2': m0007,
  '0008-devices-2': m0008,
  '0009-device-list': m0009,
  '0010-rate-counters': m0010,
  '0011-administration': m0011,
  '0014-menu': m0014,
  '0015-system-log': m0015,
  '0016-social-login': m0016,
  '0017-sim-usage': m0017,
  '0018-orders': m0018,
  '0019-work-orders': m0019,
  '0020-notices': m0020,
  '0021-inbox': m0021,
  '0022-workbench': m0022,
  '0023-work-order-more': m0023,
  '0024-packages': m0024,
  '0026-upgrade': m0026,
  '0027-application': m0027,
  '0028-file-acquisition': m0028,
  '0029-ai-library': m0029,
  '0030-fence': m0030,
  '0031-system-custom': m0031,
  '0032-push': m0032,
  '0033-sim-query': m0033,
  '0035-payload-replays': m0035,
  '0037-device-list-keys': m0037,
  '0038-print-sweep-keys': m0038,
  '0039-device-keyword-stats': m0039,
  '0040-scope-signals': m0040,
};

/**
 * Marks a hot statement whose text never changes (only its parameters do) to be run as a named prepared
 * statement: PostgreSQL parses it once per connection and, after its first executions, keeps a generic plan,
 * where an unnamed statement is parsed and planned on every call. The print path's grouped statements spent
 * 0.4–0.8 ms of PostgreSQL CPU planning each call (bench/README.md, "print"). Only for statements whose best plan
 * does not depend on the parameters' values (no keyword search, no skewed filters). Put it first in the text:
 * sql`${PREPARED} SELECT …`.
 */
const PREPARED_MARK = '/*prepared*/ ';
export const PREPARED = sql.raw(PREPARED_MARK);

/**
 * A one-row FROM item that turns `synchronous_commit` off for the statement's own (implicit) transaction: for
 * writes whose loss in a PostgreSQL crash is harmless (a state the device reports again, a live event the
 * consoles read again after their stream drops), so they do not wait for the disk.
 */
export const NO_FLUSH_WAIT = sql`(select set_config('synchronous_commit', 'off', true)) as no_flush_wait`;

/** A pg client that runs statements marked with PREPARED as named statements (the name: a hash of the text). */
class PreparingClient extends pg.Client {
  // pg's own overloads are too many to restate: the marked form is the one Kysely uses (text, values)
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config === 'string' && config.startsWith(PREPARED_MARK) && typeof values !== 'function') {
      const name = `cpc_${createHash('sha1').update(config).digest('hex').slice(0, 20)}`;
      return super.query({ name, text: config, values }, callback);
    }
    return super.query(config, values, callback);
  }
}

export function createDb(url: string, max = 20): Db {
  const pool = new pg.Pool({ connectionString: url, max, Client: PreparingClient });
  // An idle connection that the server drops (a restart, a shutdown racing the pool's end) is discarded by the
  // pool; without a listener its error would crash the process.
  pool.on('error', () => {});
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

export async function migrate(db: Db): Promise<string[]> {
  // unordered: migrations written in parallel may land in any order on an existing database
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
