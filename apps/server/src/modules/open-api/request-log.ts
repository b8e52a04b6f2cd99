import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.ts';
import { OpenApiRepository, type UsageHour } from './repository.ts';

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

  private repo: OpenApiRepository;

  constructor(
    db: Db,
    private opts: { flushMs: number; retentionDays: number },
    private log: FastifyBaseLogger,
  ) {
    this.repo = new OpenApiRepository(db);
  }

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
      await this.repo
        .insertLogLines(
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
        // a key deleted in between: its lines go with it
        .catch((err) => this.log.debug({ err }, 'open api: log lines of a deleted key dropped'));
    }
    const usage = new Map<string, UsageHour>();
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
    await this.repo.addUsage([...usage.values()]);
    if (lastUse.size) await this.repo.markKeysUsed(lastUse);
  }

  /** Deletes log lines and usage older than the retention (any node; idempotent). */
  async prune(): Promise<void> {
    await this.repo.pruneLog(this.opts.retentionDays);
  }
}
