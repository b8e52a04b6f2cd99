import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
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
import { audit, changedFields } from '../../lib/audit.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { badRequest, notFound } from '../../plugins/errors.ts';
import { resolvesPrivate, urlHostIsPrivate } from '../../lib/outbound-http.ts';
import { deviceInScope, inDataScope, type DataAccess } from '../../lib/data-scope.ts';
import { webhookBody } from './webhooks.ts';

const iso = (d: Date | string | null | undefined) => (d == null ? null : new Date(d).toISOString());

interface KeyRow {
  id: number;
  app_id: string;
  secret: string;
  name: string;
  state: 'active' | 'disabled';
  callback_url: string;
  ip_allow: string[];
  rate_limit: number | null;
  created_at: Date;
  secret_rotated_at: Date;
  last_used_at: Date | null;
}
const KEY_COLS = [
  'app_keys.id',
  'app_keys.app_id',
  'app_keys.secret',
  'app_keys.name',
  'app_keys.state',
  'app_keys.callback_url',
  'app_keys.ip_allow',
  'app_keys.rate_limit',
  'app_keys.created_at',
  'app_keys.secret_rotated_at',
  'app_keys.last_used_at',
] as const;

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
  constructor(
    private db: Db,
    private opts: { defaultRateLimit: number; allowPrivate: boolean },
  ) {}

  private view = (r: KeyRow) => keyView(r, this.opts.defaultRateLimit);

  // -------------------------------------------------------------------------------------------------------------
  // App keys

  async keys(
    scope: TenantScope,
    q: { pageNo: number; pageSize: number; keyword?: string },
  ): Promise<Paged<AppKeyView>> {
    let base = scope.selectFrom('app_keys');
    if (q.keyword) {
      const like = `%${q.keyword.replace(/[\\%_]/g, '\\$&')}%`;
      base = base.where((eb) => eb.or([eb('app_keys.name', 'ilike', like), eb('app_keys.app_id', 'ilike', like)]));
    }
    const [rows, total] = await Promise.all([
      base
        .select(KEY_COLS)
        .orderBy('app_keys.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      base.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { list: rows.map(this.view), total: total.n };
  }

  async key(scope: TenantScope, id: number): Promise<KeyRow> {
    const row = await scope.selectFrom('app_keys').select(KEY_COLS).where('app_keys.id', '=', id).executeTakeFirst();
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
    const row = await u.scope.transaction(async (scope) => {
      // the account's row is locked while its keys are counted: simultaneous creations (on any node) queue here,
      // so the cap holds
      await scope.db.selectFrom('tenants').select('id').where('id', '=', u.tenantId).forUpdate().executeTakeFirst();
      const count = await scope
        .selectFrom('app_keys')
        .select(sql<number>`count(*)::int`.as('n'))
        .executeTakeFirstOrThrow();
      if (count.n >= APP_KEYS_MAX) throw badRequest('name', 'integration.tooManyKeys', { n: APP_KEYS_MAX });
      const created = await scope
        .insertInto('app_keys', {
          app_id: newAppId(),
          secret: newSecret(),
          name: body.name,
          callback_url: body.callbackUrl,
          ip_allow: body.ipAllowList,
          rate_limit: body.rateLimit,
          created_by: u.id,
        })
        .returning([...KEY_COLS])
        .executeTakeFirstOrThrow();
      await audit(scope.db, {
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
    const set: Record<string, unknown> = {};
    if (body.name !== undefined) set.name = body.name;
    if (body.callbackUrl !== undefined) set.callback_url = body.callbackUrl;
    if (body.ipAllowList !== undefined) set.ip_allow = body.ipAllowList;
    if (body.rateLimit !== undefined) set.rate_limit = body.rateLimit;
    // the values before come back from the update itself (its FROM reads the row as it was): one statement
    const row = await u.scope
      .updateTable('app_keys')
      .from(
        u.scope
          .selectFrom('app_keys')
          .select([
            'app_keys.id',
            'app_keys.name as old_name',
            'app_keys.callback_url as old_callback_url',
            'app_keys.ip_allow as old_ip_allow',
            'app_keys.rate_limit as old_rate_limit',
          ])
          .where('app_keys.id', '=', body.id)
          .forUpdate()
          .as('old'),
      )
      .set(set)
      .whereRef('app_keys.id', '=', 'old.id')
      .returning([...KEY_COLS])
      .returning(['old.old_name', 'old.old_callback_url', 'old.old_ip_allow', 'old.old_rate_limit'])
      .executeTakeFirst();
    if (!row) throw notFound('app key');
    const show = (r: { name: string; callback_url: string; ip_allow: string[]; rate_limit: number | null }) => ({
      ...(body.name !== undefined ? { name: r.name } : {}),
      ...(body.callbackUrl !== undefined ? { callbackUrl: r.callback_url } : {}),
      ...(body.ipAllowList !== undefined ? { ipAllowList: r.ip_allow } : {}),
      ...(body.rateLimit !== undefined ? { rateLimit: r.rate_limit } : {}),
    });
    await audit(this.db, {
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
    const row = await u.scope
      .updateTable('app_keys')
      .set({ state })
      .where('app_keys.id', '=', id)
      .returning([...KEY_COLS])
      .executeTakeFirst();
    if (!row) throw notFound('app key');
    await audit(this.db, {
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
    const row = await u.scope
      .updateTable('app_keys')
      .set({ secret: newSecret(), secret_rotated_at: new Date() })
      .where('app_keys.id', '=', id)
      .returning([...KEY_COLS])
      .executeTakeFirst();
    if (!row) throw notFound('app key');
    await audit(this.db, {
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
    const row = await u.scope
      .deleteFrom('app_keys')
      .where('app_keys.id', '=', id)
      .returning(['app_keys.app_id', 'app_keys.name', 'app_keys.callback_url'])
      .executeTakeFirst();
    if (!row) throw notFound('app key');
    await audit(this.db, {
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
    let base = scope
      .selectFrom('open_request_log')
      .where('open_request_log.app_key_id', '=', keyId)
      .where('open_request_log.at', '>=', sql<Date>`now() - make_interval(days => ${REQUEST_LOG_DAYS})`);
    if (q.from) base = base.where('open_request_log.at', '>=', new Date(q.from));
    if (q.to) base = base.where('open_request_log.at', '<', new Date(q.to));
    if (q.result) base = base.where('open_request_log.code', q.result === 'ok' ? '=' : '<>', 200);
    const [rows, total] = await Promise.all([
      base
        .selectAll('open_request_log')
        .orderBy('open_request_log.at', 'desc')
        .orderBy('open_request_log.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      base.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
    ]);
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
      total: total.n,
    };
  }

  async usage(scope: TenantScope, keyId: number, q: { days: number; tz: string }): Promise<UsageView> {
    await this.key(scope, keyId);
    const { rows } = await sql<{ day: string; calls: number; errors: number; jobs: number }>`
      WITH days AS (
        SELECT generate_series((now() AT TIME ZONE ${q.tz})::date - ${q.days - 1}::int, (now() AT TIME ZONE ${q.tz})::date, interval '1 day')::date AS day
      ), u AS (
        SELECT (hour AT TIME ZONE ${q.tz})::date AS day, sum(calls)::int AS calls, sum(errors)::int AS errors, sum(jobs)::int AS jobs
        FROM app_key_usage
        WHERE app_key_id = ${keyId} AND tenant_id = ${scope.tenantId} AND hour >= now() - make_interval(days => ${q.days + 1})
        GROUP BY 1
      )
      SELECT to_char(days.day, 'YYYY-MM-DD') AS day, coalesce(u.calls, 0) AS calls, coalesce(u.errors, 0) AS errors, coalesce(u.jobs, 0) AS jobs
      FROM days LEFT JOIN u ON u.day = days.day ORDER BY days.day`.execute(this.db);
    const totals = rows.reduce(
      (t, r) => ({ calls: t.calls + r.calls, errors: t.errors + r.errors, jobs: t.jobs + r.jobs }),
      { calls: 0, errors: 0, jobs: 0 },
    );
    return { tz: q.tz, days: rows, totals };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Print jobs (console)

  /**
   * A reader of print jobs: its account, and its data scope. A job is device-linked data: one on a device
   * outside the reader's scope is not found, exactly like another account's.
   */
  private jobs({ scope, access }: JobReader) {
    return scope
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

  async jobList(
    reader: JobReader,
    q: {
      pageNo: number;
      pageSize: number;
      deviceId?: number;
      state?: PrintJobState;
      keyId?: number;
      originId?: string;
      from?: string;
      to?: string;
    },
  ): Promise<Paged<PrintJobItem>> {
    const { scope, access } = reader;
    // a filter naming another account's device (or one outside the data scope) or key is a 404, like every
    // cross-tenant id
    if (
      q.deviceId &&
      !(await scope
        .selectFrom('devices')
        .select('devices.id')
        .where('devices.id', '=', q.deviceId)
        .where(inDataScope(access))
        .executeTakeFirst())
    )
      throw notFound('device');
    if (q.keyId) await this.key(scope, q.keyId);
    let base = scope.selectFrom('print_jobs').where(deviceInScope(access, 'print_jobs.device_id'));
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
    if (!page.length) return { list: [], total: total.n };
    const rows = await this.jobs(reader)
      .where(
        'print_jobs.id',
        'in',
        page.map((r) => r.id),
      )
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    return { list: page.map((p) => jobItem(byId.get(p.id)!)), total: total.n };
  }

  async jobItem(reader: JobReader, id: string): Promise<PrintJobItem> {
    const row = await this.jobs(reader).where('print_jobs.id', '=', id).executeTakeFirst();
    if (!row) throw notFound('job');
    return jobItem(row);
  }

  async jobDetail(reader: JobReader, id: string): Promise<PrintJobDetail> {
    const row = await this.jobs(reader)
      .select(['print_jobs.content', 'print_jobs.preview', 'print_jobs.columns', 'print_jobs.format'])
      .where('print_jobs.id', '=', id)
      .executeTakeFirst();
    if (!row) throw notFound('job');
    return {
      ...jobItem(row),
      content: row.content,
      preview: row.preview.split('\n'),
      columns: row.columns,
      format: row.format,
    };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Webhook deliveries

  private deliveries({ scope, access }: JobReader) {
    return (
      scope
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

  async webhookList(
    reader: JobReader,
    q: { pageNo: number; pageSize: number; keyId?: number; jobId?: string; state?: WebhookDeliveryItem['state'] },
  ): Promise<Paged<WebhookDeliveryItem>> {
    const { scope, access } = reader;
    if (q.keyId) await this.key(scope, q.keyId);
    // the console's delivery log lists the print jobs' deliveries (fence events' are sent the same way), of jobs
    // on devices within the reader's data scope
    let base = scope.selectFrom('webhook_deliveries').where('webhook_deliveries.job_id', 'is not', null);
    if (access.scope !== 'all')
      base = base.where(
        sql<boolean>`webhook_deliveries.job_id in (select pj.id from print_jobs pj
          where pj.tenant_id = ${scope.tenantId} and ${deviceInScope(access, 'pj.device_id')})`,
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
    if (!page.length) return { list: [], total: total.n };
    const rows = await this.deliveries(reader)
      .where(
        'webhook_deliveries.id',
        'in',
        page.map((r) => r.id),
      )
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    return { list: page.map((p) => deliveryItem(byId.get(p.id)!)), total: total.n };
  }

  async webhookDetail(reader: JobReader, id: string): Promise<WebhookDeliveryDetail> {
    const { scope } = reader;
    const row = await this.deliveries(reader)
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
    if (!row) throw notFound('delivery');
    const attempts = await scope
      .selectFrom('webhook_attempts')
      .selectAll('webhook_attempts')
      .where('webhook_attempts.delivery_id', '=', id)
      .orderBy('webhook_attempts.attempt')
      .orderBy('webhook_attempts.id')
      .execute();
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
