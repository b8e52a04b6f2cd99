import type { ClusterLocks } from './cluster-locks.ts';

/**
 * Where a job runs (docs/cluster-state.md):
 * - `'node'`: on every node, for work on the node's own memory, files or connections (flushing its own batched
 *   writes, its own broker sessions, its local upload directory);
 * - `'cluster'`: on one node of the cluster per tick, the one holding the job's advisory lock (ClusterLocks), for
 *   work on shared state (sweeps, expiries, reconciliations, roll-ups, pushes). When that node stops or dies,
 *   another takes the job over at its next tick.
 */
export type RunsOn = 'node' | 'cluster';

export interface PeriodicOptions {
  /** The node's cluster locks; without them (a unit test, no database URL) cluster jobs run on this node. */
  locks?: ClusterLocks;
  /** Prefixes the job names in their lock key, so `sweep` of two modules are two jobs: e.g. `notices`. */
  scope?: string;
}

/**
 * Work a node repeats every few seconds (sweeps, flushes, upkeep): one run of each job at a time (a tick that
 * finds the job's last run still going is skipped), a failure handed to `onError` instead of thrown, and `stop()`
 * clears the timers and waits for the runs under way, so none of them meets a database that is closing. A
 * `'cluster'` job runs only on the node holding its lock.
 */
export class Periodic {
  private timers: NodeJS.Timeout[] = [];
  private running = new Map<string, Promise<void>>();
  private lockNames: string[] = [];

  constructor(
    private onError: (err: unknown, job: string) => void,
    private opts: PeriodicOptions = {},
  ) {}

  /** Runs `fn` every `ms` under the name `job` (unique within this instance), on every node or once per cluster. */
  every(ms: number, job: string, fn: () => Promise<unknown>, runsOn: RunsOn): void {
    const locks = runsOn === 'cluster' ? this.opts.locks : undefined;
    const lockName = this.opts.scope ? `${this.opts.scope}: ${job}` : job;
    if (locks) this.lockNames.push(lockName);
    const t = setInterval(() => {
      if (this.running.has(job)) return;
      const run = (locks ? locks.hold(lockName) : Promise.resolve(true))
        .then((mine) => (mine && this.timers.includes(t) ? fn() : undefined))
        .then(
          () => {},
          (err) => this.onError(err, job),
        )
        .finally(() => this.running.delete(job));
      this.running.set(job, run);
    }, ms);
    t.unref();
    this.timers.push(t);
  }

  /** Stops the timers, waits for the runs under way, and gives this instance's cluster locks up. */
  async stop(): Promise<void> {
    this.timers.forEach(clearInterval);
    this.timers = [];
    await Promise.allSettled(this.running.values());
    const { locks } = this.opts;
    if (locks) await Promise.all(this.lockNames.map((name) => locks.release(name)));
  }
}
