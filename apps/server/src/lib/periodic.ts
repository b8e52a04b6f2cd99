/**
 * Work a node repeats every few seconds (sweeps, flushes, upkeep): one run of each job at a time (a tick that
 * finds the job's last run still going is skipped), a failure handed to `onError` instead of thrown, and `stop()`
 * clears the timers and waits for the runs under way, so none of them meets a database that is closing.
 */
export class Periodic {
  private timers: NodeJS.Timeout[] = [];
  private running = new Map<string, Promise<void>>();

  constructor(private onError: (err: unknown, job: string) => void) {}

  /** Runs `fn` every `ms` under the name `job` (unique within this instance). */
  every(ms: number, job: string, fn: () => Promise<unknown>): void {
    const t = setInterval(() => {
      if (this.running.has(job)) return;
      const run = fn()
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

  async stop(): Promise<void> {
    this.timers.forEach(clearInterval);
    this.timers = [];
    await Promise.allSettled(this.running.values());
  }
}
