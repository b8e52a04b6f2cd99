import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

export interface LoggedCall {
  tenantId: number;
  keyId: number;
  at: Date;
  method: string;
  path: string;
  call: string;
  code: number;
  reason: string | null;
  latencyMs: number;
  ip: string;
  jobId: string | null;
  newJob: boolean;
  testPrint: boolean;
}

const MAX_BUFFERED = 20_000;

/**
 * The open API's request log and usage counters, written in batches: every LOG_FLUSH_MS one multi-row INSERT
 * of the calls since, one upsert of the hourly counters per key and the keys' last use. A crash loses at most
 * that interval of log lines, never a job (jobs are their own rows). Old lines are pruned after the retention.
 */
export class RequestLog {
  private buffer: LoggedCall[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private db: Db,
    private opts: { flushMs: number; retentionDays: number },
    private log: FastifyBaseLogger,
  ) {}

  add(c: LoggedCall): void {
    // a database that stays away must not grow the buffer without end: the oldest lines go first
    if (this.buffer.length >= MAX_BUFFERED) this.buffer.shift();
    this.buffer.push(c);
    this.timer ??= setTimeout(() => void this.flush(), this.opts.flushMs);
  }

  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing = this.flushing.then(() =>
      this.write().catch((err) => this.log.warn({ err }, 'open api: request log not written')),
    );
    return this.flushing;
  }

  private async write(): Promise<void> {
    const calls = this.buffer.splice(0);
    if (!calls.length) return;
    for (let i = 0; i < calls.length; i += 2000) {
      const part = calls.slice(i, i + 2000);
      await this.db
        .insertInto('open_request_log')
        .values(
          part.map((c) => ({
            tenant_id: c.tenantId,
            app_key_id: c.keyId,
            at: c.at,
            method: c.method,
            path: c.path.slice(0, 300),
            call: c.call,
            code: c.code,
            reason: c.reason,
            latency_ms: Math.round(c.latencyMs * 100) / 100,
            ip: c.ip,
            job_id: c.jobId,
            test_print: c.testPrint,
          })),
        )
        .execute()
        // a key deleted in between: its lines go with it
        .catch((err) => this.log.debug({ err }, 'open api: log lines of a deleted key dropped'));
    }
    const usage = new Map<
      string,
      { keyId: number; tenantId: number; hour: Date; calls: number; errors: number; jobs: number }
    >();
    const lastUse = new Map<number, Date>();
    for (const c of calls) {
      const hour = new Date(Math.floor(c.at.getTime() / 3_600_000) * 3_600_000);
      const k = `${c.keyId}:${hour.getTime()}`;
      const u = usage.get(k) ?? { keyId: c.keyId, tenantId: c.tenantId, hour, calls: 0, errors: 0, jobs: 0 };
      u.calls++;
      if (c.code !== 200) u.errors++;
      if (c.newJob) u.jobs++;
      usage.set(k, u);
      if (!c.testPrint && c.code === 200 && (lastUse.get(c.keyId) ?? 0) < c.at) lastUse.set(c.keyId, c.at);
    }
    const u = [...usage.values()];
    await sql`
      INSERT INTO app_key_usage (app_key_id, tenant_id, hour, calls, errors, jobs)
      SELECT k, t, h, c, e, j FROM unnest(${u.map((x) => x.keyId)}::bigint[], ${u.map((x) => x.tenantId)}::bigint[], ${u.map((x) => x.hour)}::timestamptz[],
        ${u.map((x) => x.calls)}::int[], ${u.map((x) => x.errors)}::int[], ${u.map((x) => x.jobs)}::int[]) AS x(k, t, h, c, e, j)
      WHERE EXISTS (SELECT 1 FROM app_keys WHERE id = k)
      ON CONFLICT (app_key_id, hour) DO UPDATE SET calls = app_key_usage.calls + excluded.calls,
        errors = app_key_usage.errors + excluded.errors, jobs = app_key_usage.jobs + excluded.jobs`.execute(this.db);
    if (lastUse.size) {
      await sql`
        UPDATE app_keys a SET last_used_at = greatest(a.last_used_at, x.at)
        FROM unnest(${[...lastUse.keys()]}::bigint[], ${[...lastUse.values()]}::timestamptz[]) AS x(id, at)
        WHERE a.id = x.id`.execute(this.db);
    }
  }

  /** Deletes log lines and usage older than the retention (any node; idempotent). */
  async prune(): Promise<void> {
    await sql`DELETE FROM open_request_log WHERE at < now() - make_interval(days => ${this.opts.retentionDays})`.execute(
      this.db,
    );
    await sql`DELETE FROM app_key_usage WHERE hour < now() - make_interval(days => ${this.opts.retentionDays + 1})`.execute(
      this.db,
    );
  }
}
