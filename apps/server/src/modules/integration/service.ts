import { randomBytes } from 'node:crypto';
import type { Paged } from '@cpc/contracts';
import {
  APP_KEYS_MAX,
  REQUEST_LOG_DAYS,
  type AppKeyCreateBody,
  type AppKeyView,
  type AppKeyWithSecret,
  type PrintJobDetail,
  type PrintJobItem,
  type RequestLogItem,
  type UsageView,
  type WebhookAttempt,
  type WebhookDeliveryDetail,
  type WebhookDeliveryItem,
} from '@cpc/contracts/integration';
import type { Db } from '../../db/database.ts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import type { PrintJobState } from '../../db/schema.ts';
import { changedFields } from '../../lib/audit.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { badRequest, notFound } from '../../plugins/errors.ts';
import { resolvesPrivate, urlHostIsPrivate } from '../../lib/outbound-http.ts';
import type { DataAccess } from '../../lib/data-scope.ts';
import { webhookBody } from './webhooks.ts';
import {
  IntegrationRepository,
  type DeliveryFilter,
  type JobFilter,
  type KeyChange,
  type KeyRow,
} from './repository/index.ts';

const iso = (d: Date | string | null | undefined) => (d == null ? null : new Date(d).toISOString());

/** `defaultRateLimit`: the server's OPEN_RATE_LIMIT, which a key without a limit of its own follows. */
const keyView = (r: KeyRow, defaultRateLimit: number): AppKeyView => ({
  id: r.id,
  appId: r.app_id,
  name: r.name,
  state: r.state,
  callbackUrl: r.callback_url,
  ipAllowList: r.ip_allow,
  rateLimit: r.rate_limit,
  effectiveRateLimit: r.rate_limit ?? defaultRateLimit,
  secretHint: `…${r.secret.slice(-4)}`,
  // told from the URL alone (an address in any spelling, localhost, a one-label name): no lookup on every list
  callbackPrivate: r.callback_url !== '' && urlHostIsPrivate(r.callback_url),
  createdAt: iso(r.created_at)!,
  secretRotatedAt: iso(r.secret_rotated_at)!,
  lastUsedAt: iso(r.last_used_at),
});

/** 40 characters of base64url: 240 bits. */
const newSecret = () => randomBytes(30).toString('base64url');
const newAppId = () => `ak${randomBytes(8).toString('hex')}`;

interface JobListRow {
  id: string;
  origin_id: string;
  state: PrintJobState;
  error: string;
  copies: number;
  attempts: number;
  device_id: number;
  sn: string;
  device_name: string;
  app_key_id: number | null;
  app_id: string | null;
  key_name: string | null;
  created_at: Date;
  updated_at: Date;
  sent_at: Date | null;
  delivered_at: Date | null;
  started_at: Date | null;
  finished_at: Date | null;
  expire_at: Date;
}
const jobItem = (r: JobListRow): PrintJobItem => ({
  id: r.id,
  originId: r.origin_id,
  state: r.state,
  error: r.error,
  copies: r.copies,
  attempts: r.attempts,
  deviceId: Number(r.device_id),
  deviceSn: r.sn,
  deviceName: r.device_name,
  keyId: r.app_key_id == null ? null : Number(r.app_key_id),
  appId: r.app_id,
  keyName: r.key_name,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
  sentAt: iso(r.sent_at),
  deliveredAt: iso(r.delivered_at),
  startedAt: iso(r.started_at),
  finishedAt: iso(r.finished_at),
  expireAt: iso(r.expire_at)!,
});

interface DeliveryListRow {
  id: string;
  app_key_id: number;
  app_id: string;
  job_id: string;
  origin_id: string;
  job_state: PrintJobState;
  state: WebhookDeliveryItem['state'];
  attempts: number;
  last_status: number | null;
  last_error: string;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
}
const deliveryItem = (r: DeliveryListRow): WebhookDeliveryItem => ({
  id: r.id,
  keyId: Number(r.app_key_id),
  appId: r.app_id,
  jobId: r.job_id,
  originId: r.origin_id,
  jobState: r.job_state,
  state: r.state,
  attempts: r.attempts,
  lastStatus: r.last_status,
  lastError: r.last_error,
  nextAttemptAt: iso(r.next_attempt_at),
  deliveredAt: iso(r.delivered_at),
  createdAt: iso(r.created_at)!,
});

/**
 * The console's side of system integration (DESIGN §4): app keys (the secret shown once, rotation that ends
 * the old one at once), their request log and usage, the account's print jobs, and webhook deliveries.
 * Everything goes through the caller's tenant scope; another account's ids are not found (404).
 */
/** Who reads print jobs and their webhook deliveries: the account, and the reader's data scope. */
export interface JobReader {
  scope: TenantScope;
  access: DataAccess;
}

export class IntegrationService {
  private repo: IntegrationRepository;

  constructor(
    db: Db,
    private opts: { defaultRateLimit: number; allowPrivate: boolean },
  ) {
    this.repo = new IntegrationRepository(db);
  }

  private view = (r: KeyRow) => keyView(r, this.opts.defaultRateLimit);

  // -------------------------------------------------------------------------------------------------------------
  // App keys

  async keys(
    scope: TenantScope,
    q: { pageNo: number; pageSize: number; keyword?: string },
  ): Promise<Paged<AppKeyView>> {
    const { rows, total } = await this.repo.keys.listKeys(scope.tenantId, q);
    return { list: rows.map(this.view), total };
  }

  async key(scope: TenantScope, id: number): Promise<KeyRow> {
    const row = await this.repo.keys.findKey(scope.tenantId, id);
    if (!row) throw notFound('app key');
    return row;
  }

  /**
   * With OUTBOUND_PRIVATE=deny a callback to an internal address is refused when saved, not only at delivery
   * (which still checks the address it connects to: a name may resolve elsewhere by then).
   */
  private async checkCallback(url: string): Promise<void> {
    if (url === '' || this.opts.allowPrivate) return;
    if (urlHostIsPrivate(url)) throw badRequest('callbackUrl', 'rule.internalAddress');
    const host = new URL(url).hostname;
    if (host.startsWith('[') || /^[\d.]+$/.test(host)) return;
    const bad = await resolvesPrivate(host, 2000);
    if (bad) throw badRequest('callbackUrl', 'rule.resolvesInternal', { host, ip: bad });
  }

  async createKey(u: AuthUser, body: Required<AppKeyCreateBody>, ip: string): Promise<AppKeyWithSecret> {
    await this.checkCallback(body.callbackUrl);
    const row = await this.repo.transaction(async (tx) => {
      // the account's row is locked while its keys are counted: simultaneous creations (on any node) queue here,
      // so the cap holds
      await tx.keys.lockTenant(u.tenantId);
      const count = await tx.keys.countKeys(u.tenantId);
      if (count >= APP_KEYS_MAX) throw badRequest('name', 'integration.tooManyKeys', { n: APP_KEYS_MAX });
      const created = await tx.keys.insertKey(u.tenantId, {
        app_id: newAppId(),
        secret: newSecret(),
        name: body.name,
        callback_url: body.callbackUrl,
        ip_allow: body.ipAllowList,
        rate_limit: body.rateLimit,
        created_by: u.id,
      });
      await tx.keys.audit({
        tenantId: u.tenantId,
        userId: u.id,
        ip,
        action: 'integration.key.create',
        resource: 'app_key',
        resourceId: created.id,
        result: 'ok',
        changes: changedFields(
          {},
          {
            appId: created.app_id,
            name: created.name,
            callbackUrl: created.callback_url,
            ipAllowList: created.ip_allow,
            rateLimit: created.rate_limit,
            secret: 'set',
          },
        ),
      });
      return created;
    });
    return { ...this.view(row), secret: row.secret };
  }

  /** Changes what is given; `rateLimit: null` makes the key follow the server's default again. */
  async updateKey(
    u: AuthUser,
    body: { id: number; name?: string; callbackUrl?: string; ipAllowList?: string[]; rateLimit?: number | null },
    ip: string,
  ): Promise<AppKeyView> {
    if (body.callbackUrl !== undefined) await this.checkCallback(body.callbackUrl);
    const set: KeyChange = {};
    if (body.name !== undefined) set.name = body.name;
    if (body.callbackUrl !== undefined) set.callback_url = body.callbackUrl;
    if (body.ipAllowList !== undefined) set.ip_allow = body.ipAllowList;
    if (body.rateLimit !== undefined) set.rate_limit = body.rateLimit;
    // the values before come back from the update itself (its FROM reads the row as it was): one statement
    const row = await this.repo.keys.updateKey(u.tenantId, body.id, set);
    if (!row) throw notFound('app key');
    const show = (r: { name: string; callback_url: string; ip_allow: string[]; rate_limit: number | null }) => ({
      ...(body.name !== undefined ? { name: r.name } : {}),
      ...(body.callbackUrl !== undefined ? { callbackUrl: r.callback_url } : {}),
      ...(body.ipAllowList !== undefined ? { ipAllowList: r.ip_allow } : {}),
      ...(body.rateLimit !== undefined ? { rateLimit: r.rate_limit } : {}),
    });
    await this.repo.keys.audit({
      tenantId: u.tenantId,
      userId: u.id,
      ip,
      action: 'integration.key.update',
      resource: 'app_key',
      resourceId: row.id,
      result: 'ok',
      changes: changedFields(
        show({
          name: row.old_name,
          callback_url: row.old_callback_url,
          ip_allow: row.old_ip_allow,
          rate_limit: row.old_rate_limit,
        }),
        show(row),
      ),
    });
    return this.view(row);
  }

  async setKeyState(u: AuthUser, id: number, state: 'active' | 'disabled', ip: string): Promise<AppKeyView> {
    const row = await this.repo.keys.setKeyState(u.tenantId, id, state);
    if (!row) throw notFound('app key');
    await this.repo.keys.audit({
      tenantId: u.tenantId,
      userId: u.id,
      ip,
      action: `integration.key.${state === 'active' ? 'enable' : 'disable'}`,
      resource: 'app_key',
      resourceId: id,
      result: 'ok',
      changes: changedFields({ state: state === 'active' ? 'disabled' : 'active' }, { state }),
    });
    return this.view(row);
  }

  /** A new secret; every signature check reads the key's row as it is now, so the old secret fails from the next call on. */
  async rotateKey(u: AuthUser, id: number, ip: string): Promise<AppKeyWithSecret> {
    const row = await this.repo.keys.setSecret(u.tenantId, id, newSecret(), new Date());
    if (!row) throw notFound('app key');
    await this.repo.keys.audit({
      tenantId: u.tenantId,
      userId: u.id,
      ip,
      action: 'integration.key.rotate',
      resource: 'app_key',
      resourceId: id,
      result: 'ok',
      changes: changedFields({ secret: 'old' }, { secret: 'new' }),
    });
    return { ...this.view(row), secret: row.secret };
  }

  /** Deletes a key: its calls stop at once; its jobs stay (without a key); its log, usage and deliveries go. */
  async deleteKey(u: AuthUser, id: number, ip: string): Promise<{ appId: string }> {
    const row = await this.repo.keys.deleteKey(u.tenantId, id);
    if (!row) throw notFound('app key');
    await this.repo.keys.audit({
      tenantId: u.tenantId,
      userId: u.id,
      ip,
      action: 'integration.key.delete',
      resource: 'app_key',
      resourceId: id,
      result: 'ok',
      changes: changedFields({ appId: row.app_id, name: row.name, callbackUrl: row.callback_url }, {}),
    });
    return { appId: row.app_id };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Request log and usage

  async requests(
    scope: TenantScope,
    keyId: number,
    q: { pageNo: number; pageSize: number; from?: string; to?: string; result?: 'ok' | 'error' },
  ): Promise<Paged<RequestLogItem>> {
    await this.key(scope, keyId);
    const { rows, total } = await this.repo.keys.listRequests(scope.tenantId, keyId, REQUEST_LOG_DAYS, q);
    return {
      list: rows.map((r) => ({
        id: r.id,
        at: iso(r.at)!,
        method: r.method,
        path: r.path,
        call: r.call,
        code: r.code,
        reason: r.reason,
        latencyMs: r.latency_ms,
        ip: r.ip,
        jobId: r.job_id,
        testPrint: r.test_print,
      })),
      total,
    };
  }

  async usage(scope: TenantScope, keyId: number, q: { days: number; tz: string }): Promise<UsageView> {
    await this.key(scope, keyId);
    const rows = await this.repo.keys.usageByDay(scope.tenantId, keyId, q);
    const totals = rows.reduce(
      (t, r) => ({ calls: t.calls + r.calls, errors: t.errors + r.errors, jobs: t.jobs + r.jobs }),
      { calls: 0, errors: 0, jobs: 0 },
    );
    return { tz: q.tz, days: rows, totals };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Print jobs (console): a job is device-linked data, so one on a device outside the reader's data scope is not
  // found, exactly like another account's

  async jobList(reader: JobReader, q: JobFilter): Promise<Paged<PrintJobItem>> {
    const { scope, access } = reader;
    const tenantId = scope.tenantId;
    // a filter naming another account's device (or one outside the data scope) or key is a 404, like every
    // cross-tenant id
    if (q.deviceId && !(await this.repo.jobs.deviceExists(tenantId, access, q.deviceId))) throw notFound('device');
    if (q.keyId) await this.key(scope, q.keyId);
    const { ids, total } = await this.repo.jobs.pageJobIds(tenantId, access, q);
    if (!ids.length) return { list: [], total };
    const rows = await this.repo.jobs.listJobs(tenantId, access, ids);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return { list: ids.map((id) => jobItem(byId.get(id)!)), total };
  }

  async jobItem(reader: JobReader, id: string): Promise<PrintJobItem> {
    const row = await this.repo.jobs.findJob(reader.scope.tenantId, reader.access, id);
    if (!row) throw notFound('job');
    return jobItem(row);
  }

  async jobDetail(reader: JobReader, id: string): Promise<PrintJobDetail> {
    const row = await this.repo.jobs.findJobDetail(reader.scope.tenantId, reader.access, id);
    if (!row) throw notFound('job');
    return {
      ...jobItem(row),
      content: row.content,
      preview: row.preview.split('\n'),
      columns: row.columns,
      format: row.format,
    };
  }

  /** The serial number of the test print's device, within the reader's data scope (404 otherwise). */
  async testPrintDevice(reader: JobReader, deviceId: number): Promise<string> {
    const sn = await this.repo.jobs.deviceSn(reader.scope.tenantId, reader.access, deviceId);
    if (sn === undefined) throw notFound('device');
    return sn;
  }

  /** The paper width of the markup preview's device, within the reader's data scope (404 otherwise). */
  async previewPaperWidth(reader: JobReader, deviceId: number): Promise<number> {
    const mm = await this.repo.jobs.devicePaperWidth(reader.scope.tenantId, reader.access, deviceId);
    if (mm === undefined) throw notFound('device');
    return mm;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Webhook deliveries

  async webhookList(reader: JobReader, q: DeliveryFilter): Promise<Paged<WebhookDeliveryItem>> {
    const { scope, access } = reader;
    if (q.keyId) await this.key(scope, q.keyId);
    // the console's delivery log lists the print jobs' deliveries (fence events' are sent the same way), of jobs
    // on devices within the reader's data scope
    const { ids, total } = await this.repo.jobs.pageDeliveryIds(scope.tenantId, access, q);
    if (!ids.length) return { list: [], total };
    const rows = await this.repo.jobs.listDeliveries(scope.tenantId, access, ids);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return { list: ids.map((id) => deliveryItem(byId.get(id)!)), total };
  }

  async webhookDetail(reader: JobReader, id: string): Promise<WebhookDeliveryDetail> {
    const { scope } = reader;
    const row = await this.repo.jobs.findDeliveryDetail(scope.tenantId, reader.access, id);
    if (!row) throw notFound('delivery');
    const attempts = await this.repo.jobs.listAttempts(scope.tenantId, id);
    const attemptLog: WebhookAttempt[] = attempts.map((a) => ({
      attempt: a.attempt,
      at: iso(a.at)!,
      manual: a.manual,
      status: a.status,
      durationMs: a.duration_ms,
      error: a.error,
      response: a.response,
    }));
    return {
      ...deliveryItem(row),
      callbackUrl: row.callback_url,
      payload: webhookBody({
        id: row.id,
        app_id: row.app_id,
        occurred_at: row.occurred_at,
        job_id: row.job_id,
        origin_id: row.origin_id,
        sn: row.sn,
        job_state: row.job_state,
        job_error: row.job_error,
        copies: row.copies,
      }),
      attemptLog,
    };
  }
}
