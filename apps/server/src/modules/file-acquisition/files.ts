import fs from 'node:fs/promises';
import path from 'node:path';
import type { ObjectStorage } from '../../lib/storage.ts';
import type { FileAcquisitionRepository } from './repository.ts';

const sizeOf = async (file: string) => (await fs.stat(file).catch(() => null))?.size ?? 0;

/**
 * The bytes of file requests in the object storage: the chunks received so far of an upload (a local file beside
 * the objects, or with S3 objects of the bucket) and the acquired files; deleting requests removes both.
 */
export class AcquiredFiles {
  constructor(readonly storage: ObjectStorage) {}

  /** Where the bytes received so far of a request wait (beside the objects: completing is a rename). */
  partialOf(requestId: number): string {
    return path.join(this.storage.directory, '.acquiring', String(requestId));
  }

  /**
   * With S3 (issue 17) the chunks received so far are objects of the bucket (`.acquiring/<id>/<start>`), so that
   * the next chunk may reach any node; in order, as far as they follow each other from 0.
   */
  async sharedChunks(requestId: number): Promise<{ key: string; size: number }[]> {
    const all: { start: number; key: string; size: number }[] = [];
    for await (const o of this.storage.driver.list(`.acquiring/${requestId}/`)) {
      const m = /\/(\d{12})$/.exec(o.key);
      if (m) all.push({ start: Number(m[1]), key: o.key, size: o.size });
    }
    all.sort((a, b) => a.start - b.start);
    let at = 0;
    return all.filter((c) => c.start === at && c.size > 0 && (at += c.size) > 0);
  }

  /** How many bytes of a request have arrived. */
  async receivedOf(requestId: number): Promise<number> {
    if (!this.storage.remote) return sizeOf(this.partialOf(requestId));
    return (await this.sharedChunks(requestId)).reduce((n, c) => n + c.size, 0);
  }

  async removePartial(requestId: number): Promise<void> {
    await fs.rm(this.partialOf(requestId), { force: true });
    if (!this.storage.remote) return;
    const keys: string[] = [];
    for await (const o of this.storage.driver.list(`.acquiring/${requestId}/`)) keys.push(o.key);
    for (const k of keys) await this.storage.remove(k);
  }

  /** Deletes the tenant's requests (`repo` maybe bound to a transaction), their files and partial uploads. */
  async deleteRequests(repo: FileAcquisitionRepository, tenantId: number, ids: number[]): Promise<void> {
    const gone = await repo.deleteRequests(tenantId, ids);
    for (const g of gone) {
      await this.removePartial(Number(g.id));
      if (g.object_key) await this.storage.remove(g.object_key);
    }
  }
}
