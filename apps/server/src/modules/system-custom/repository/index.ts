import type { Db } from '../../../db/database.ts';
import { defineQueries } from '../../../db/query-spec.ts';
import { CustomProfileRepository } from './profiles.ts';
import { ProfileReadRepository } from './reading.ts';
import { ProfileStateRepository } from './states.ts';

export type { VersionValues } from './profiles.ts';
export type { DeviceStateRow } from './reading.ts';
export type { ReportValues, StateUpsert } from './states.ts';
export { CustomProfileRepository, ProfileReadRepository, ProfileStateRepository };

/**
 * Every statement of the system-custom module, split by table group: `profiles` (profiles, their versions and
 * assignments), `states` (each device's resolved configuration, its apply_profile tasks and reports) and `reads`
 * (the console's lists and counts). Also the rows of other modules it reads or writes for them today (devices,
 * device groups, apply_profile tasks, uploaded objects, the customer's applications, user names). Tenant-owned
 * tables are reached through a `TenantScope` of the tenant each method names.
 */
export class SystemCustomRepository {
  readonly profiles: CustomProfileRepository;
  readonly states: ProfileStateRepository;
  readonly reads: ProfileReadRepository;

  constructor(private readonly db: Db) {
    this.profiles = new CustomProfileRepository(db);
    this.states = new ProfileStateRepository(db);
    this.reads = new ProfileReadRepository(db);
  }

  /** Runs `work` in one transaction with a repository bound to it (inside a transaction already, joins it). */
  transaction<T>(work: (repo: SystemCustomRepository) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return work(this);
    return this.db.transaction().execute((trx) => work(new SystemCustomRepository(trx)));
  }
}

export const queries = defineQueries(SystemCustomRepository, {});
