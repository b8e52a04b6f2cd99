import type { Db } from '../../db/database.ts';

export interface DirectoryEntry {
  id: number;
  secret: string;
}

/** How long a node believes what it read of a device (docs/cluster-state.md): its bound of staleness. */
export const DIRECTORY_TTL_MS = 60_000;
/** How long a node believes a serial number is not registered. */
export const DIRECTORY_MISS_TTL_MS = 5_000;

/** Entries due for an early read are gathered for this long, then read together. */
const REFRESH_GROUP_MS = 100;
/** At most this many serial numbers per grouped read. */
const REFRESH_GROUP_MAX = 1000;

interface Cached {
  entry: DirectoryEntry | null;
  until: number;
}

/**
 * sn → device id and secret, cached briefly: 10,000 devices reconnecting must not mean 10,000 lookups each
 * time, and a rotated secret or a removed device is picked up by every node within `ttlMs` (a newly registered
 * device within `missTtlMs`), whichever node made the change.
 *
 * A known device's entry is read again before it runs out: a `get` in the second half of its time answers at
 * once and puts it on a list read in grouped statements (issue 17). A device that talks at least once in
 * `ttlMs / 2` (its heartbeat, at most 30 s, does) never waits for a lookup in its messages' path, and a fleet
 * costs a few grouped reads a second instead of one read per device per `ttlMs`.
 */
export class DeviceDirectory {
  private cache = new Map<string, Cached>();
  private inflight = new Map<string, Promise<DirectoryEntry | null>>();
  /** Entries to read again early, each with the cached object it replaces (gone or replaced: not written). */
  private due = new Map<string, Cached>();
  private refreshTimer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> = Promise.resolve();

  constructor(
    private db: Db,
    private ttl: { ttlMs: number; missTtlMs: number } = { ttlMs: DIRECTORY_TTL_MS, missTtlMs: DIRECTORY_MISS_TTL_MS },
  ) {}

  async get(sn: string): Promise<DirectoryEntry | null> {
    const hit = this.cache.get(sn);
    const now = Date.now();
    if (hit && hit.until > now) {
      if (hit.entry && hit.until - now < this.ttl.ttlMs / 2) this.refreshSoon(sn, hit);
      return hit.entry;
    }
    let p = this.inflight.get(sn);
    if (!p) {
      p = this.db
        .selectFrom('devices')
        .select(['id', 'secret'])
        .where('sn', '=', sn)
        .executeTakeFirst()
        .then((row) => this.store(sn, row, Date.now()))
        .finally(() => this.inflight.delete(sn));
      this.inflight.set(sn, p);
    }
    return p;
  }

  forget(sn: string): void {
    this.cache.delete(sn);
    this.due.delete(sn);
  }

  /** Resolves when the early reads asked for so far are done (tests). */
  async refreshed(): Promise<void> {
    if (this.refreshTimer) {
      clearTimeout(this.refreshTimer);
      this.startRefresh();
    }
    await this.refreshing;
  }

  /** Drops the early reads not yet started and waits for the one under way (before the database goes). */
  async stop(): Promise<void> {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = undefined;
    this.due.clear();
    await this.refreshing;
  }

  private refreshSoon(sn: string, cached: Cached): void {
    if (this.due.has(sn)) return;
    this.due.set(sn, cached);
    this.refreshTimer ??= setTimeout(() => this.startRefresh(), REFRESH_GROUP_MS);
  }

  /** Starts the grouped read of the due entries, after the one under way. */
  private startRefresh(): void {
    this.refreshTimer = undefined;
    this.refreshing = this.refreshing.then(() => this.refreshDue());
  }

  /** Caches what a read at `at` found of `sn`: an entry for `ttlMs`, or its absence for `missTtlMs`. */
  private store(sn: string, row: { id: number; secret: string } | undefined, at: number): DirectoryEntry | null {
    const entry = row ? { id: row.id, secret: row.secret } : null;
    this.cache.set(sn, { entry, until: at + (entry ? this.ttl.ttlMs : this.ttl.missTtlMs) });
    return entry;
  }

  /** Reads the due entries again, in groups; a failed read leaves them to run out and be read in the path. */
  private async refreshDue(): Promise<void> {
    while (this.due.size) {
      const group = [...this.due].slice(0, REFRESH_GROUP_MAX);
      for (const [sn] of group) this.due.delete(sn);
      const asked = Date.now();
      let rows: { sn: string; id: number; secret: string }[];
      try {
        rows = await this.db
          .selectFrom('devices')
          .select(['sn', 'id', 'secret'])
          .where(
            'sn',
            'in',
            group.map(([sn]) => sn),
          )
          .execute();
      } catch {
        return;
      }
      const found = new Map(rows.map((r) => [r.sn, r]));
      for (const [sn, cached] of group) {
        // forgotten, or read in the path meanwhile: that answer stands
        if (this.cache.get(sn) === cached) this.store(sn, found.get(sn), asked);
      }
    }
  }
}
