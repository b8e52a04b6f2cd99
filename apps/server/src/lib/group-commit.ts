/**
 * Group commit: calls that arrive while a flush is in flight (or within `windowMs` of the first of them) are
 * written together by one `flush`, in one transaction, and each caller's promise settles only after that
 * transaction committed — so "answered" still means "stored", with one commit shared by the group.
 *
 * An entry nobody waits on (`urgent` says false: written without waiting for the disk) may wait longer, up to
 * `lazyWindowMs`, so that such entries arriving one by one still share a commit; an urgent entry arriving meanwhile
 * takes the group with it after its own `windowMs`.
 *
 * `flush` gets the group in arrival order and returns one outcome per entry (a value, or an Error for that entry
 * alone). If it throws, the group is split: every entry is written alone through `single`, so one bad entry
 * never fails the others.
 */
export class GroupCommit<In, Out> {
  private queue: { input: In; resolve: (v: Out) => void; reject: (e: unknown) => void }[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** When the pending timer fires (ms since the epoch). */
  private deadline = 0;
  private running: Promise<void> | null = null;
  /** Groups written and entries in them (for the benchmarks' and tests' eyes). */
  readonly stats = { groups: 0, entries: 0, split: 0 };

  constructor(
    private opts: {
      flush: (inputs: In[]) => Promise<(Out | Error)[]>;
      single: (input: In) => Promise<Out>;
      /** How long the first call of an idle group waits for company (0: the next turn of the event loop). */
      windowMs: number;
      /** Largest group. */
      max: number;
      /** How long a group of only non-urgent entries waits for company (default: `windowMs`). */
      lazyWindowMs?: number;
      /** Whether someone waits on the entry's commit (default: every entry is urgent). */
      urgent?: (input: In) => boolean;
    },
  ) {}

  /** Settles once the entry's transaction committed (or failed). */
  add(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      this.schedule(this.isUrgent(input) ? this.opts.windowMs : this.lazyMs);
    });
  }

  /** Writes whatever is queued and waits for it (on close). */
  async drain(): Promise<void> {
    while (this.running || this.queue.length) {
      this.clearTimer();
      if (!this.running) this.start();
      await this.running;
    }
  }

  private get lazyMs(): number {
    return this.opts.lazyWindowMs ?? this.opts.windowMs;
  }

  private isUrgent(input: In): boolean {
    return this.opts.urgent ? this.opts.urgent(input) : true;
  }

  /** Starts the group within `waitMs`, or sooner if it is due sooner already. */
  private schedule(waitMs: number): void {
    if (this.running) return;
    if (this.queue.length >= this.opts.max) {
      this.clearTimer();
      return this.start();
    }
    const at = Date.now() + waitMs;
    if (this.timer && this.deadline <= at) return;
    this.clearTimer();
    this.deadline = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.running) this.start();
    }, waitMs);
  }

  private clearTimer(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
  }

  private start(): void {
    const group = this.queue.splice(0, this.opts.max);
    if (!group.length) return;
    this.running = this.write(group).finally(() => {
      this.running = null;
      if (!this.queue.length) return;
      // what arrived meanwhile and is waited on goes at once: it has waited for a whole commit already
      if (this.queue.some((q) => this.isUrgent(q.input))) this.start();
      else this.schedule(this.lazyMs);
    });
  }

  private async write(group: { input: In; resolve: (v: Out) => void; reject: (e: unknown) => void }[]) {
    this.stats.groups++;
    this.stats.entries += group.length;
    let outcomes: (Out | Error)[] | null = null;
    if (group.length > 1) {
      try {
        outcomes = await this.opts.flush(group.map((g) => g.input));
      } catch {
        // one of them broke the group's statement: each alone, so only that one fails
        this.stats.split++;
        outcomes = null;
      }
    }
    if (outcomes) {
      group.forEach((g, i) => {
        const o = outcomes[i];
        if (o instanceof Error) g.reject(o);
        else g.resolve(o);
      });
      return;
    }
    await Promise.all(
      group.map(async (g) => {
        try {
          g.resolve(await this.opts.single(g.input));
        } catch (err) {
          g.reject(err);
        }
      }),
    );
  }
}
