import pg from 'pg';

declare module 'fastify' {
  interface FastifyInstance {
    /** This node's cluster locks (lib/cluster-locks.ts), for the cluster-once periodic jobs. */
    clusterLocks: ClusterLocks;
  }
}

/** Logs what the lock connection does (a pino logger fits). */
export interface LockLog {
  warn(obj: object, msg: string): void;
}

/**
 * Which node runs a cluster-once job (docs/cluster-state.md): the node that holds the job's PostgreSQL advisory
 * lock, a session lock on one connection of its own (never a pool connection: the lock must outlive a query).
 * A node takes a free lock at a tick and keeps it, so the job runs on exactly one node per tick; the lock goes
 * when the node releases it (a clean stop) or when its session ends (a crash, a SIGKILL: PostgreSQL sees the
 * connection close; a host that vanished is noticed by TCP keepalive), and another node takes it at its next tick.
 *
 * Advisory locks are per database, so nodes on different databases never meet. Without a database URL (a unit
 * test) every job runs here.
 */
export class ClusterLocks {
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private held = new Set<string>();
  private closed = false;
  private failing = false;
  /** The session's statements, one after the other (pg warns about queries sent while one is under way). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private databaseUrl: string | undefined,
    private log: LockLog,
  ) {}

  /** The job's lock key: a 64-bit hash of its name, computed by PostgreSQL (the same on every node). */
  static keyOf(name: string): string {
    return `cpc periodic: ${name}`;
  }

  /** Names whose lock this node holds now. */
  holding(): string[] {
    return [...this.held];
  }

  /**
   * true when this node holds the lock of `name` (taking it when free). A node that holds it checks that its
   * session is still there (one round trip), since a session that ended took the lock with it.
   */
  async hold(name: string): Promise<boolean> {
    if (!this.databaseUrl) return true;
    if (this.closed) return false;
    try {
      const client = await this.connection();
      if (this.held.has(name)) {
        await this.query(client, 'SELECT 1');
        return this.held.has(name);
      }
      const { rows } = await this.query<{ ok: boolean }>(
        client,
        'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok',
        [ClusterLocks.keyOf(name)],
      );
      if (rows[0]?.ok && this.client === client) this.held.add(name);
      this.failing = false;
      return this.held.has(name);
    } catch (err) {
      // said once per outage, not once per job and tick
      if (!this.failing)
        this.log.warn({ err }, 'cluster locks: lock connection failed, cluster-once jobs skipped until it is back');
      this.failing = true;
      this.drop();
      return false;
    }
  }

  /** Gives the lock of `name` up (a job stopping on this node), so another node takes it at its next tick. */
  async release(name: string): Promise<void> {
    if (!this.held.delete(name) || !this.client) return;
    await this.query(this.client, 'SELECT pg_advisory_unlock(hashtextextended($1, 0))', [
      ClusterLocks.keyOf(name),
    ]).catch(() => this.drop());
  }

  /** Ends the lock connection: every lock this node held is free at once. */
  async close(): Promise<void> {
    this.closed = true;
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.held.clear();
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private query<R extends pg.QueryResultRow>(
    client: pg.Client,
    text: string,
    values: unknown[] = [],
  ): Promise<pg.QueryResult<R>> {
    const run = this.queue.then(() => client.query<R>(text, values));
    this.queue = run.catch(() => {});
    return run;
  }

  private connection(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      // named, so an operator can see in pg_stat_activity (and pg_locks) which node holds which job
      const client = new pg.Client({
        connectionString: this.databaseUrl,
        application_name: 'cpc-cluster-locks',
        keepAlive: true,
      });
      const lost = () => {
        if (this.client === client) this.drop();
      };
      client.on('error', lost);
      client.on('end', lost);
      try {
        await client.connect();
      } catch (err) {
        client.end().catch(() => {});
        throw err;
      }
      if (this.closed) {
        await client.end().catch(() => {});
        throw new Error('cluster locks closed');
      }
      this.client = client;
      return client;
    })().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /** The session is gone or unusable: whatever it held is free (or will be when PostgreSQL notices). */
  private drop(): void {
    const client = this.client;
    this.client = undefined;
    this.held.clear();
    client?.end().catch(() => {});
  }
}
