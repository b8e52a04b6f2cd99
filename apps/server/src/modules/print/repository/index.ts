import type { Db } from '../../../db/database.ts';
import { defineQueries } from '../../../db/query-spec.ts';
import { PrintDeliveryRepository } from './delivery.ts';
import { PrintJobRepository } from './jobs.ts';

export type { Report, ReportGroup } from './delivery.ts';
export type { DeviceRow, JobFilter, JobValues, SubmitDevice, WrittenRow } from './jobs.ts';
export type { Changed, JobRow, SendRow } from './statements.ts';
export { PrintDeliveryRepository, PrintJobRepository };

/**
 * Every statement of printing, by side: `jobs` (the integrator's submits, reads and cancels, the devices the open
 * API shows, the objects a markup image may name) and `delivery` (resends, the printers' reports, the sweep). A
 * state change writes the webhook deliveries (integration's table) of the states jobs entered in its own
 * statement, so a callback is never lost between the two.
 */
export class PrintRepository {
  readonly jobs: PrintJobRepository;
  readonly delivery: PrintDeliveryRepository;

  constructor(db: Db) {
    this.jobs = new PrintJobRepository(db);
    this.delivery = new PrintDeliveryRepository(db);
  }
}

export const queries = defineQueries(PrintRepository, {});
