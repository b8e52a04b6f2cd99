import fs from 'node:fs/promises';
import type { LocalDriver } from './local.ts';
import type { StorageDriver } from './driver.ts';

export interface MigrateCounts {
  /** Objects found in the local folder. */
  found: number;
  copied: number;
  /** Already in the target with the same size. */
  skipped: number;
  failed: number;
  /** Local copies deleted (only with `deleteLocal`, and only once the target holds the same size). */
  deleted: number;
}

/**
 * Copies every local object (issue 17: moving a single node's DATA_DIR/objects to S3) to `target`. Idempotent: an
 * object already there with the same size is skipped, so a cut-short run is simply run again. Local copies are
 * kept unless `deleteLocal`; a failed object is counted and reported, the others go on.
 */
export async function migrateObjects(
  source: LocalDriver,
  target: StorageDriver,
  opts: { deleteLocal?: boolean; log?: (line: string) => void } = {},
): Promise<MigrateCounts> {
  const counts: MigrateCounts = { found: 0, copied: 0, skipped: 0, failed: 0, deleted: 0 };
  for await (const o of source.list()) {
    counts.found++;
    try {
      const there = await target.stat(o.key);
      if (there?.size === o.size) counts.skipped++;
      else {
        await target.putFile(o.key, o.file!, o.size);
        const now = await target.stat(o.key);
        if (now?.size !== o.size) throw new Error(`size after copy ${now?.size ?? 'none'}, expected ${o.size}`);
        counts.copied++;
      }
      if (opts.deleteLocal) {
        await fs.rm(o.file!, { force: true });
        counts.deleted++;
      }
    } catch (e) {
      counts.failed++;
      opts.log?.(`failed: ${o.key}: ${(e as Error).message}`);
    }
    if (counts.found % 1000 === 0) opts.log?.(`${counts.found} objects…`);
  }
  return counts;
}
