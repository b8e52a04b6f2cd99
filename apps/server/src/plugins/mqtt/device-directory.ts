import type { Db } from '../../db/database.ts';

export interface DirectoryEntry {
  id: number;
  secret: string;
}

/** How long a node believes what it read of a device (docs/cluster-state.md): its bound of staleness. */
export const DIRECTORY_TTL_MS = 60_000;
/** How long a node believes a serial number is not registered. */
export const DIRECTORY_MISS_TTL_MS = 5_000;

/**
 * sn → device id and secret, cached briefly: 10,000 devices reconnecting must not mean 10,000 lookups each
 * time, and a rotated secret or a removed device is picked up by every node within `ttlMs` (a newly registered
 * device within `missTtlMs`), whichever node made the change.
 */
export class DeviceDirectory {
  private cache = new Map<string, { entry: DirectoryEntry | null; until: number }>();
  private inflight = new Map<string, Promise<DirectoryEntry | null>>();

  constructor(
    private db: Db,
    private ttl: { ttlMs: number; missTtlMs: number } = { ttlMs: DIRECTORY_TTL_MS, missTtlMs: DIRECTORY_MISS_TTL_MS },
  ) {}

  async get(sn: string): Promise<DirectoryEntry | null> {
    const hit = this.cache.get(sn);
    if (hit && hit.until > Date.now()) return hit.entry;
    let p = this.inflight.get(sn);
    if (!p) {
      p = this.db
        .selectFrom('devices')
        .select(['id', 'secret'])
        .where('sn', '=', sn)
        .executeTakeFirst()
        .then((row) => {
          const entry = row ? { id: row.id, secret: row.secret } : null;
          this.cache.set(sn, { entry, until: Date.now() + (entry ? this.ttl.ttlMs : this.ttl.missTtlMs) });
          return entry;
        })
        .finally(() => this.inflight.delete(sn));
      this.inflight.set(sn, p);
    }
    return p;
  }

  forget(sn: string): void {
    this.cache.delete(sn);
  }
}
