import fs from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { StorageDriver, StoredObject } from './driver.ts';

const missing = (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * Objects as files under one folder (the embedded default, DATA_DIR/objects): a key is a path below it. Folders
 * whose name starts with a dot (`.tmp`, `.uploads`, `.acquiring`) are the node's staging areas, never objects.
 */
export class LocalDriver implements StorageDriver {
  readonly kind = 'local' as const;
  readonly origin = null;
  readonly root: string;
  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** The file of an object's key (refused when the key would leave the storage folder or name a staging area). */
  fileOf(key: string): string {
    const p = path.resolve(this.root, key);
    if (!p.startsWith(this.root + path.sep) || key.startsWith('.')) throw new Error('key outside storage');
    return p;
  }

  /** A hard link on the same disk (a copy onto another), never replacing a file already there. */
  async putFile(key: string, file: string): Promise<void> {
    const dest = this.fileOf(key);
    await fs.mkdir(path.dirname(dest), { recursive: true });
    await fs.link(file, dest).catch((e: unknown) => {
      if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
      return fs.copyFile(file, dest, fs.constants.COPYFILE_EXCL);
    });
  }

  async putBytes(key: string, bytes: Buffer): Promise<void> {
    const dest = this.fileOf(key);
    await fs.mkdir(path.dirname(dest), { recursive: true });
    await fs.writeFile(dest, bytes, { flag: 'wx' });
  }

  async read(key: string): Promise<Buffer | null> {
    try {
      return await fs.readFile(this.fileOf(key));
    } catch (e) {
      if (missing(e)) return null;
      throw e;
    }
  }

  async stat(key: string): Promise<{ size: number } | null> {
    const st = await fs.stat(this.fileOf(key)).catch((e: unknown) => {
      if (missing(e)) return null;
      throw e;
    });
    return st?.isFile() ? { size: st.size } : null;
  }

  async openRead(key: string): Promise<Readable | null> {
    return (await this.stat(key)) ? createReadStream(this.fileOf(key)) : null;
  }

  async remove(key: string): Promise<void> {
    await fs.rm(this.fileOf(key), { force: true });
  }

  /** Local objects are served by the node itself (its signed links): nothing to presign. */
  async presignGet(): Promise<string | null> {
    return null;
  }

  async *list(): AsyncIterable<StoredObject> {
    const walk = async function* (dir: string, prefix: string): AsyncIterable<StoredObject> {
      const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const e of entries) {
        if (e.name.startsWith('.')) continue;
        const full = path.join(dir, e.name);
        if (e.isDirectory()) yield* walk(full, `${prefix}${e.name}/`);
        else if (e.isFile()) yield { key: `${prefix}${e.name}`, size: (await fs.stat(full)).size, file: full };
      }
    };
    yield* walk(this.root, '');
  }
}
