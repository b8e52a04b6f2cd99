import type { Db } from '../../db/database.ts';
import { defineQueries } from '../../db/query-spec.ts';
import { TenantScope } from '../../db/tenant-scope.ts';

/** What a stored object's row says about it. */
export interface NewObject {
  tenantId: number;
  userId: number;
  key: string;
  bucket: string;
  size: number;
  mime: string;
  originalName: string;
}

/** Every statement of uploads: the `objects` rows that record what is in object storage. */
export class UploadRepository {
  constructor(private db: Db) {}

  /** Records an uploaded object in its uploader's tenant. */
  async insertObject(o: NewObject): Promise<void> {
    await new TenantScope(this.db, o.tenantId)
      .insertInto('objects', {
        key: o.key,
        user_id: o.userId,
        bucket: o.bucket,
        size: o.size,
        mime: o.mime,
        original_name: o.originalName,
      })
      .execute();
  }

  /** Forgets an object whose bytes could not be stored. */
  async deleteObject(key: string): Promise<void> {
    await this.db.deleteFrom('objects').where('key', '=', key).execute();
  }

  /** The media type of a stored object, when it is known. */
  findMime(key: string): Promise<{ mime: string } | undefined> {
    return this.db.selectFrom('objects').select('mime').where('key', '=', key).executeTakeFirst();
  }
}

export const queries = defineQueries(UploadRepository, {
  insertObject: [
    [
      {
        tenantId: 3,
        userId: 41,
        key: '2026/03/01/4f1c2a9e-report.pdf',
        bucket: 'attachment',
        size: 48213,
        mime: 'application/pdf',
        originalName: 'report.pdf',
      },
    ],
  ],
  deleteObject: [['2026/03/01/4f1c2a9e-report.pdf']],
  findMime: [['2026/03/01/4f1c2a9e-report.pdf']],
});
