import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import pg from 'pg';
import PgBoss from 'pg-boss';

export interface JobQueueOptions {
  databaseUrl: string | undefined;
  /** How often an idle worker looks for due jobs (pg-boss's minimum is 500 ms). */
  pollMs: number;
  log: FastifyBaseLogger;
}

export interface QueueJob<T> {
  id: string;
  data: T;
}

/**
 * Background work on pg-boss (DESIGN §2): a job queue in the same PostgreSQL, in its own schema `pgboss`, so
 * N server nodes share it and work survives a restart. Queues are created on start; workers registered before
 * the start begin with it.
 */
export class JobQueue {
  readonly boss: PgBoss | undefined;
  private queues = new Set<string>();
  private workers: Array<{
    queue: string;
    batchSize: number;
    handler: (jobs: QueueJob<unknown>[]) => Promise<void>;
    id?: string;
  }> = [];
  private started = false;

  constructor(private opts: JobQueueOptions) {
    if (!opts.databaseUrl) {
      opts.log.warn('job queue: no DATABASE_URL, background work (webhooks) is off');
      return;
    }
    this.boss = new PgBoss({
      connectionString: opts.databaseUrl,
      max: 4,
      application_name: 'cpc-job-queue',
      // completed jobs are kept a day (the delivery log is the record); nothing here is scheduled by cron
      archiveCompletedAfterSeconds: 3600,
      deleteAfterDays: 1,
    });
    this.boss.on('error', (err) => opts.log.warn({ err }, 'job queue: pg-boss error'));
  }

  /** Declares a queue (created on start). */
  queue(name: string): this {
    this.queues.add(name);
    return this;
  }

  /** Runs `handler` for batches of due jobs of a queue; a batch completes when the handler resolves. */
  work<T>(queue: string, batchSize: number, handler: (jobs: QueueJob<T>[]) => Promise<void>): void {
    this.queues.add(queue);
    this.workers.push({ queue, batchSize, handler: handler as (jobs: QueueJob<unknown>[]) => Promise<void> });
  }

  /** Inserts jobs in one statement; a job whose id exists already is skipped (ids make sends idempotent). */
  async insert(
    queue: string,
    jobs: Array<{ id: string; data: object; startAfter?: Date }>,
    opts: { retryLimit?: number; expireInSeconds?: number } = {},
  ): Promise<void> {
    if (!this.boss || !jobs.length) return;
    await this.boss.insert(
      jobs.map((j) => ({
        name: queue,
        id: j.id,
        data: j.data,
        startAfter: j.startAfter,
        retryLimit: opts.retryLimit ?? 2,
        retryDelay: 5,
        expireInSeconds: opts.expireInSeconds ?? 120,
      })),
    );
  }

  /** Wakes this node's workers of a queue now instead of at their next poll. */
  wake(queue: string): void {
    if (!this.boss || !this.started) return;
    for (const w of this.workers) if (w.queue === queue && w.id) this.boss.notifyWorker(w.id);
  }

  get enabled(): boolean {
    return !!this.boss;
  }

  async start(): Promise<void> {
    const boss = this.boss;
    if (!boss) return;
    await this.startOneAtATime(boss);
    for (const w of this.workers) {
      w.id = await boss.work(
        w.queue,
        { batchSize: w.batchSize, pollingIntervalSeconds: this.opts.pollMs / 1000 },
        async (jobs) => {
          await w.handler(jobs.map((j) => ({ id: j.id, data: j.data })));
        },
      );
    }
    this.started = true;
  }

  /**
   * Starts pg-boss and creates the declared queues that do not exist yet, one node at a time. pg-boss guards its
   * own install, not `create_queue` (its start creates a queue of its own too): two nodes creating queues on a
   * fresh schema at once deadlock (each holds what the other's partition attach waits for), and the node chosen
   * as the victim failed its start. A session advisory lock on a connection of its own serialises the nodes;
   * closing the connection releases it, whatever happened.
   */
  private async startOneAtATime(boss: PgBoss): Promise<void> {
    const lock = new pg.Client({ connectionString: this.opts.databaseUrl, application_name: 'cpc-job-queue' });
    // a connection lost while it idles under pg-boss's start would be an 'error' event without a listener (a
    // crash); the start's own queries fail on their own then
    lock.on('error', (err) => this.opts.log.warn({ err }, 'job queue: start lock connection lost'));
    await lock.connect();
    try {
      await lock.query(`SELECT pg_advisory_lock(hashtext('cpc-job-queues'))`);
      await boss.start();
      for (const name of this.queues) if (!(await boss.getQueue(name))) await boss.createQueue(name);
    } finally {
      await lock.end();
    }
  }

  async stop(): Promise<void> {
    if (!this.boss) return;
    this.started = false;
    await this.boss
      .stop({ graceful: true, wait: true, timeout: 10_000 })
      .catch((err) => this.opts.log.warn({ err }, 'job queue: stop failed'));
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    jobQueue: JobQueue;
  }
}

/** Registers the queue: started when the app is ready (after every worker was declared), stopped when it closes. */
export const jobQueue = fp<{ queue: JobQueue }>(
  async (app: FastifyInstance, { queue }) => {
    app.decorate('jobQueue', queue);
    app.addHook('onReady', () => queue.start());
    app.addHook('onClose', () => queue.stop());
  },
  { name: 'job-queue' },
);
