import type { Db } from '../../db/database.ts';

export interface DirectoryEntry {
  id: number;
  secret: string;
}

const TTL_MS = 60_000;
const MISS_TTL_MS = 5_000;

/**
 * sn → device id and secret, cached briefly: 10,000 devices reconnecting must not mean 10,000 lookups each
 * time, and a rotated secret or a newly registered device is picked up within a minute (a miss within 5 s).
 */
export class DeviceDirectory {
  private cache = new Map<string, { entry: DirectoryEntry | null; until: number }>();
  private inflight = new Map<string, Promise<DirectoryEntry | null>>();

  constructor(private db: Db) {}

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
          this.cache.set(sn, { entry, until: Date.now() + (entry ? TTL_MS : MISS_TTL_MS) });
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
