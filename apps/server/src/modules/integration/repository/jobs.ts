import { sql } from 'kysely';
import { defineQueries } from '../../../db/query-spec.ts';
import type { PrintJobState } from '../../../db/schema.ts';
import { deviceInScope, inDataScope, type DataAccess } from '../../../lib/data-scope.ts';
import { Repository } from '../../../db/repository.ts';

/** Which print jobs a console's page shows. */
export interface JobFilter {
  pageNo: number;
  pageSize: number;
  deviceId?: number;
  state?: PrintJobState;
  keyId?: number;
  originId?: string;
  from?: string;
  to?: string;
}

/** Which webhook deliveries a console's page shows. */
export interface DeliveryFilter {
  pageNo: number;
  pageSize: number;
  keyId?: number;
  jobId?: string;
  state?: 'pending' | 'retrying' | 'succeeded' | 'failed';
}

/**
 * What the console reads of print jobs and of their webhook deliveries and attempts, within the reader's account
 * and data scope (`access`): a job is device-linked data, so one on a device outside the scope is not found,
 * exactly like another account's. Also the devices the console's test print and markup preview name.
 */
export class PrintJobReadRepository extends Repository {
  /** Print jobs with their device and key, as the console lists them. */
  private jobs(tenantId: number, access: DataAccess) {
    return this.scope(tenantId)
      .selectFrom('print_jobs')
      .innerJoin('devices', 'devices.id', 'print_jobs.device_id')
      .where(deviceInScope(access, 'print_jobs.device_id'))
      .leftJoin('app_keys', 'app_keys.id', 'print_jobs.app_key_id')
      .select([
        'print_jobs.id',
        'print_jobs.origin_id',
        'print_jobs.state',
        'print_jobs.error',
        'print_jobs.copies',
        'print_jobs.attempts',
        'print_jobs.device_id',
        'devices.sn',
        'devices.name as device_name',
        'print_jobs.app_key_id',
        'app_keys.app_id',
        'app_keys.name as key_name',
        'print_jobs.created_at',
        'print_jobs.updated_at',
        'print_jobs.sent_at',
        'print_jobs.delivered_at',
        'print_jobs.started_at',
        'print_jobs.finished_at',
        'print_jobs.expire_at',
      ]);
  }

  /** Whether a device of the account inside the reader's data scope exists. */
  async deviceExists(tenantId: number, access: DataAccess, deviceId: number): Promise<boolean> {
    const row = await this.scope(tenantId)
      .selectFrom('devices')
      .select('devices.id')
      .where('devices.id', '=', deviceId)
      .where(inDataScope(access))
      .executeTakeFirst();
    return !!row;
  }

  /** The serial number of a device inside the reader's data scope (the test print's target). */
  async deviceSn(tenantId: number, access: DataAccess, deviceId: number): Promise<string | undefined> {
    const row = await this.scope(tenantId)
      .selectFrom('devices')
      .select(['devices.sn'])
      .where('devices.id', '=', deviceId)
      .where(inDataScope(access))
      .executeTakeFirst();
    return row?.sn;
  }

  /** The paper width of a device inside the reader's data scope (the markup preview's paper). */
  async devicePaperWidth(tenantId: number, access: DataAccess, deviceId: number): Promise<number | undefined> {
    const row = await this.scope(tenantId)
      .selectFrom('devices')
      .innerJoin('device_models', 'device_models.id', 'devices.model_id')
      .select(['device_models.paper_width_mm'])
      .where('devices.id', '=', deviceId)
      .where(inDataScope(access))
      .executeTakeFirst();
    return row?.paper_width_mm;
  }

  /** The ids of a page of jobs, newest first; and their count. */
  async pageJobIds(tenantId: number, access: DataAccess, q: JobFilter): Promise<{ ids: string[]; total: number }> {
    let base = this.scope(tenantId).selectFrom('print_jobs').where(deviceInScope(access, 'print_jobs.device_id'));
    if (q.deviceId) base = base.where('print_jobs.device_id', '=', q.deviceId);
    if (q.state) base = base.where('print_jobs.state', '=', q.state);
    if (q.keyId) base = base.where('print_jobs.app_key_id', '=', q.keyId);
    if (q.originId) base = base.where('print_jobs.origin_id', '=', q.originId);
    if (q.from) base = base.where('print_jobs.created_at', '>=', new Date(q.from));
    if (q.to) base = base.where('print_jobs.created_at', '<', new Date(q.to));
    const ids = base
      .select('print_jobs.id')
      .orderBy('print_jobs.created_at', 'desc')
      .orderBy('print_jobs.seq', 'desc')
      .limit(q.pageSize)
      .offset((q.pageNo - 1) * q.pageSize);
    const [page, total] = await Promise.all([
      ids.execute(),
      base.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { ids: page.map((r) => r.id), total: total.n };
  }

  listJobs(tenantId: number, access: DataAccess, ids: string[]) {
    return this.jobs(tenantId, access).where('print_jobs.id', 'in', ids).execute();
  }

  findJob(tenantId: number, access: DataAccess, id: string) {
    return this.jobs(tenantId, access).where('print_jobs.id', '=', id).executeTakeFirst();
  }

  /** A job with its content, preview, columns and format. */
  findJobDetail(tenantId: number, access: DataAccess, id: string) {
    return this.jobs(tenantId, access)
      .select(['print_jobs.content', 'print_jobs.preview', 'print_jobs.columns', 'print_jobs.format'])
      .where('print_jobs.id', '=', id)
      .executeTakeFirst();
  }

  /** Webhook deliveries of print jobs with their key's app id and job's origin id, as the console lists them. */
  private deliveries(tenantId: number, access: DataAccess) {
    return (
      this.scope(tenantId)
        .selectFrom('webhook_deliveries')
        .innerJoin('app_keys', 'app_keys.id', 'webhook_deliveries.app_key_id')
        .innerJoin('print_jobs', 'print_jobs.id', 'webhook_deliveries.job_id')
        .where(deviceInScope(access, 'print_jobs.device_id'))
        .select([
          'webhook_deliveries.id',
          'webhook_deliveries.app_key_id',
          'app_keys.app_id',
          'webhook_deliveries.job_id',
          'print_jobs.origin_id',
          'webhook_deliveries.job_state',
          'webhook_deliveries.state',
          'webhook_deliveries.attempts',
          'webhook_deliveries.last_status',
          'webhook_deliveries.last_error',
          'webhook_deliveries.next_attempt_at',
          'webhook_deliveries.delivered_at',
          'webhook_deliveries.created_at',
        ])
        // the inner join keeps the print jobs' deliveries: their job columns are set (other events' are null)
        .$narrowType<{ job_id: string; job_state: PrintJobState }>()
    );
  }

  /**
   * The ids of a page of the print jobs' deliveries (fence events' are sent the same way, not listed here), of
   * jobs on devices within the reader's data scope, newest first; and their count.
   */
  async pageDeliveryIds(
    tenantId: number,
    access: DataAccess,
    q: DeliveryFilter,
  ): Promise<{ ids: string[]; total: number }> {
    let base = this.scope(tenantId).selectFrom('webhook_deliveries').where('webhook_deliveries.job_id', 'is not', null);
    if (access.scope !== 'all')
      base = base.where(
        sql<boolean>`webhook_deliveries.job_id in (select pj.id from print_jobs pj
          where pj.tenant_id = ${tenantId} and ${deviceInScope(access, 'pj.device_id')})`,
      );
    if (q.keyId) base = base.where('webhook_deliveries.app_key_id', '=', q.keyId);
    if (q.jobId) base = base.where('webhook_deliveries.job_id', '=', q.jobId);
    if (q.state) base = base.where('webhook_deliveries.state', '=', q.state);
    const ids = base
      .select('webhook_deliveries.id')
      .orderBy('webhook_deliveries.created_at', 'desc')
      .orderBy('webhook_deliveries.occurred_at', 'desc')
      .limit(q.pageSize)
      .offset((q.pageNo - 1) * q.pageSize);
    const [page, total] = await Promise.all([
      ids.execute(),
      base.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { ids: page.map((r) => r.id), total: total.n };
  }

  listDeliveries(tenantId: number, access: DataAccess, ids: string[]) {
    return this.deliveries(tenantId, access).where('webhook_deliveries.id', 'in', ids).execute();
  }

  /** A delivery with what its exact body is made of: its key's callback URL, its time, the job's error, copies and device. */
  findDeliveryDetail(tenantId: number, access: DataAccess, id: string) {
    return this.deliveries(tenantId, access)
      .innerJoin('devices', 'devices.id', 'print_jobs.device_id')
      .select([
        'app_keys.callback_url',
        'webhook_deliveries.occurred_at',
        'webhook_deliveries.job_error',
        'print_jobs.copies',
        'devices.sn',
      ])
      .where('webhook_deliveries.id', '=', id)
      .executeTakeFirst();
  }

  /** Every attempt of a delivery, in order. */
  listAttempts(tenantId: number, deliveryId: string) {
    return this.scope(tenantId)
      .selectFrom('webhook_attempts')
      .selectAll('webhook_attempts')
      .where('webhook_attempts.delivery_id', '=', deliveryId)
      .orderBy('webhook_attempts.attempt')
      .orderBy('webhook_attempts.id')
      .execute();
  }
}

const ALL: DataAccess = { scope: 'all', tenantId: 3, userId: 12, departmentId: null, departmentPath: null };
const DEPARTMENT: DataAccess = {
  scope: 'department',
  tenantId: 3,
  userId: 14,
  departmentId: 5,
  departmentPath: '1/5/',
};
const JOB = '0b9e8f7a-6c5d-4e3f-8a2b-1c0d9e8f7a6b';
const DELIVERY = '7d6c5b4a-3e2f-4a1b-9c8d-7e6f5a4b3c2d';
const page = { pageNo: 1, pageSize: 20 };

export const jobReadQueries = defineQueries(PrintJobReadRepository, {
  deviceExists: [[3, DEPARTMENT, 101]],
  deviceSn: [[3, ALL, 101]],
  devicePaperWidth: [[3, DEPARTMENT, 101]],
  pageJobIds: [
    { args: [3, ALL, page], results: [[], [{ n: 0 }]] },
    {
      args: [
        3,
        DEPARTMENT,
        {
          ...page,
          deviceId: 101,
          state: 'printed',
          keyId: 7,
          originId: 'order-1001',
          from: '2026-01-01T00:00:00Z',
          to: '2026-01-02T00:00:00Z',
        },
      ],
      results: [[], [{ n: 0 }]],
    },
  ],
  listJobs: [[3, DEPARTMENT, [JOB]]],
  findJob: [[3, ALL, JOB]],
  findJobDetail: [[3, DEPARTMENT, JOB]],
  pageDeliveryIds: [
    { args: [3, ALL, page], results: [[], [{ n: 0 }]] },
    { args: [3, DEPARTMENT, { ...page, keyId: 7, jobId: JOB, state: 'retrying' }], results: [[], [{ n: 0 }]] },
  ],
  listDeliveries: [[3, ALL, [DELIVERY]]],
  findDeliveryDetail: [[3, DEPARTMENT, DELIVERY]],
  listAttempts: [[3, DELIVERY]],
});
