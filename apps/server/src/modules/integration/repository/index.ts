import type { Db } from '../../../db/database.ts';
import { defineQueries } from '../../../db/query-spec.ts';
import { WebhookDeliveryRepository } from './deliveries.ts';
import { PrintJobReadRepository } from './jobs.ts';
import { AppKeyRepository } from './keys.ts';

export type { AttemptRecord, DeliveryRow } from './deliveries.ts';
export type { DeliveryFilter, JobFilter } from './jobs.ts';
export type { ChangedKey, KeyChange, KeyRow, NewKey, RequestFilter } from './keys.ts';
export { AppKeyRepository, PrintJobReadRepository, WebhookDeliveryRepository };

/**
 * Every statement of the integration module, by table group: `keys` (app keys, their request log and usage),
 * `jobs` (what the console reads of print jobs, their webhook deliveries and attempts, and the devices it names)
 * and `deliveries` (the webhook sender's writes and reads). The print jobs, devices and request-log rows it reads
 * belong to other modules (print, device, open-api).
 */
export class IntegrationRepository {
  readonly keys: AppKeyRepository;
  readonly jobs: PrintJobReadRepository;
  readonly deliveries: WebhookDeliveryRepository;

  constructor(private readonly db: Db) {
    this.keys = new AppKeyRepository(db);
    this.jobs = new PrintJobReadRepository(db);
    this.deliveries = new WebhookDeliveryRepository(db);
  }

  /** Runs `work` in one transaction with a repository bound to it (inside a transaction already, joins it). */
  transaction<T>(work: (repo: IntegrationRepository) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return work(this);
    return this.db.transaction().execute((trx) => work(new IntegrationRepository(trx)));
  }
}

export const queries = defineQueries(IntegrationRepository, {});
