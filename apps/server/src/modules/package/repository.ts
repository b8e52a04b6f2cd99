import { sql, type Selectable } from 'kysely';
import { OPEN_TASK_STATES, type PackageKind } from '@cpc/contracts';
import type { Packages } from '../../db/generated.ts';
import { defineQueries } from '../../db/query-spec.ts';
import { audit, type AuditEntry } from '../../lib/audit.ts';
import { Repository } from '../../db/repository.ts';

/** A package row with the username of whoever uploaded it. */
export type PackageRow = Selectable<Packages> & { creator?: string | null };

/** What a new package row holds beside its kind, object and checksum (its fields as the catalogue decided them). */
export interface PackageValues {
  name: string;
  identifier: string;
  version_name: string;
  version_code: number;
  models: string[];
  notes: string;
  meta: Record<string, unknown>;
}

/** A stored object's row (the package's bytes, or an APK's icon), inserted with the package in one transaction. */
export interface PackageObject {
  key: string;
  size: number;
  mime: string;
  originalName: string;
}

/** One group of "my applications": a package name, its number of versions, their size and its newest version. */
export interface AppGroupRow {
  identifier: string;
  versions: string;
  total_size: string;
  latest: string;
  n: string;
}

/** An app's versions as they decide an upload: its version, code, meta (certificate) and whether deleted. */
export type AppVersionRow = Pick<Selectable<Packages>, 'version_name' | 'version_code' | 'meta' | 'deleted_at'>;

const OPEN = sql.join(OPEN_TASK_STATES.map((s) => sql.lit(s)));

const likeOf = (keyword: string) => `%${keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Every statement of the package module: the `packages` catalogue, the `objects` rows of its bytes, and what it
 * reads of other modules' tables (device models a package fits, device tasks that carry a package).
 */
export class PackageRepository extends Repository {
  /** The tenant's undeleted packages with their uploader's username. */
  private withCreator(tenantId: number) {
    return this.scope(tenantId)
      .selectFrom('packages')
      .leftJoin('users', 'users.id', 'packages.created_by')
      .selectAll('packages')
      .select('users.username as creator')
      .where('packages.deleted_at', 'is', null);
  }

  /** One undeleted package of the tenant. */
  findLive(tenantId: number, id: number): Promise<PackageRow | undefined> {
    return this.withCreator(tenantId).where('packages.id', '=', id).executeTakeFirst();
  }

  /** Undeleted packages of the tenant by id (any order). */
  listLiveByIds(tenantId: number, ids: number[]): Promise<PackageRow[]> {
    return this.withCreator(tenantId).where('packages.id', 'in', ids).execute();
  }

  /** A page of the tenant's undeleted packages of `kinds`, newest first, and how many match in all. */
  async listPage(
    tenantId: number,
    q: { kinds: PackageKind[]; identifier?: string; keyword?: string; pageNo: number; pageSize: number },
  ): Promise<{ rows: PackageRow[]; total: number }> {
    let query = this.withCreator(tenantId).where('packages.kind', 'in', q.kinds);
    if (q.identifier) query = query.where('packages.identifier', '=', q.identifier);
    if (q.keyword) {
      const like = likeOf(q.keyword);
      query = query.where((eb) =>
        eb.or([
          eb('packages.name', 'ilike', like),
          eb('packages.identifier', 'ilike', like),
          eb('packages.version_name', 'ilike', like),
        ]),
      );
    }
    const [rows, count] = await Promise.all([
      query
        .orderBy('packages.created_at', 'desc')
        .orderBy('packages.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      query
        .clearSelect()
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirst(),
    ]);
    return { rows, total: Number(count?.n ?? 0) };
  }

  /** A page of the tenant's apps grouped by package name, the most recently uploaded first (`n`: groups in all). */
  async listAppGroups(
    tenantId: number,
    q: { keyword?: string; pageNo: number; pageSize: number },
  ): Promise<AppGroupRow[]> {
    const like = q.keyword ? likeOf(q.keyword) : null;
    const { rows } = await sql<AppGroupRow>`
        WITH g AS (
          SELECT identifier, count(*) AS versions, sum(size) AS total_size,
            (array_agg(id ORDER BY version_code DESC, created_at DESC, id DESC))[1] AS latest,
            max(created_at) AS last_at
          FROM packages
          WHERE tenant_id = ${tenantId} AND kind = 'app' AND deleted_at IS NULL
            AND (${like}::text IS NULL OR name ILIKE ${like} OR identifier ILIKE ${like})
          GROUP BY identifier
        )
        SELECT identifier, versions, total_size, latest, count(*) OVER () AS n FROM g
        ORDER BY last_at DESC, identifier
        LIMIT ${q.pageSize} OFFSET ${(q.pageNo - 1) * q.pageSize}`.execute(this.db);
    return rows;
  }

  /** Every version of an app of the tenant, deleted ones included, the highest version code first. */
  listAppVersions(tenantId: number, identifier: string): Promise<AppVersionRow[]> {
    return this.scope(tenantId)
      .selectFrom('packages')
      .select(['version_name', 'version_code', 'meta', 'deleted_at'])
      .where('kind', '=', 'app')
      .where('identifier', '=', identifier)
      .orderBy('version_code', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  /** The codes among `codes` that name a device model. */
  async knownModelCodes(codes: string[]): Promise<string[]> {
    if (!codes.length) return [];
    const rows = await this.db.selectFrom('device_models').select('code').where('code', 'in', codes).execute();
    return rows.map((r) => r.code);
  }

  /** The device models of `codes`, by code. */
  async listModels(codes: string[]): Promise<{ code: string; name: string }[]> {
    if (!codes.length) return [];
    return this.db
      .selectFrom('device_models')
      .select(['code', 'name'])
      .where('code', 'in', codes)
      .orderBy('code')
      .execute();
  }

  /**
   * One transaction: the object rows of the package's bytes (and of its icon), then the package row. A second
   * upload of the same version fails on the unique index (PostgreSQL code 23505), which the caller answers.
   */
  insertPackage(
    tenantId: number,
    p: {
      kind: PackageKind;
      values: PackageValues;
      object: PackageObject;
      icon: PackageObject | null;
      sha256: string;
      createdBy: number;
    },
  ): Promise<Selectable<Packages>> {
    return this.scope(tenantId).transaction(async (tx) => {
      for (const o of p.icon ? [p.object, p.icon] : [p.object])
        await tx
          .insertInto('objects', {
            key: o.key,
            user_id: p.createdBy,
            bucket: 'package',
            size: o.size,
            mime: o.mime,
            original_name: o.originalName,
          })
          .execute();
      return tx
        .insertInto('packages', {
          kind: p.kind,
          ...p.values,
          meta: JSON.stringify(p.values.meta),
          object_key: p.object.key,
          size: p.object.size,
          sha256: p.sha256,
          created_by: p.createdBy,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  }

  /** Marks the package deleted (unless it already is); the row as it is then. */
  markDeleted(tenantId: number, id: number): Promise<Selectable<Packages> | undefined> {
    return this.scope(tenantId)
      .updateTable('packages')
      .set({ deleted_at: new Date() })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  }

  /** How many unfinished device tasks of the tenant carry the package. */
  async countOpenTasks(tenantId: number, id: number): Promise<number> {
    const { rows } = await sql<{ n: string }>`
    SELECT count(*) AS n FROM device_tasks
    WHERE tenant_id = ${tenantId} AND state IN (${OPEN}) AND params->>'packageId' = ${String(id)}`.execute(this.db);
    return Number(rows[0]?.n ?? 0);
  }

  /** The package object of a task that is still open and of a type that downloads one. */
  async findOpenTaskPackage(taskId: string): Promise<{ object_key: string; sha256: string } | undefined> {
    const { rows } = await sql<{ object_key: string; sha256: string }>`
        SELECT p.object_key, p.sha256 FROM device_tasks t
        JOIN packages p ON p.id = (t.params->>'packageId')::bigint AND p.tenant_id = t.tenant_id
        WHERE t.id = ${taskId} AND t.state IN ('sent', 'delivered', 'running', 'timeout')
          AND t.type IN ('upgrade', 'install_app', 'deploy_model')`.execute(this.db);
    return rows[0];
  }

  /**
   * Runs `work` holding the tenant's upload-start lock (a transaction-scoped advisory lock, on every node), so two
   * starts of one tenant cannot both take its last place.
   */
  withUploadStartLock<T>(tenantId: number, work: () => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (tx) => {
      await sql`select pg_advisory_xact_lock(hashtext('package uploads'), ${tenantId}::int)`.execute(tx);
      return work();
    });
  }

  /** A system-log entry. */
  audit(entry: AuditEntry): Promise<void> {
    return audit(this.db, entry);
  }
}

export const queries = defineQueries(PackageRepository, {
  findLive: [[3, 41]],
  listLiveByIds: [[3, [41, 42]]],
  listPage: [
    [3, { kinds: ['firmware', 'app', 'model'], pageNo: 1, pageSize: 20 }],
    [3, { kinds: ['app'], identifier: 'com.shop.kiosk', keyword: 'kiosk_2%', pageNo: 2, pageSize: 20 }],
  ],
  listAppGroups: [
    [3, { pageNo: 1, pageSize: 20 }],
    [3, { keyword: 'kiosk', pageNo: 1, pageSize: 20 }],
  ],
  listAppVersions: [[3, 'com.shop.kiosk']],
  knownModelCodes: [[['P58-A', 'P80-B']]],
  listModels: [[['P58-A', 'P80-B']]],
  insertPackage: [
    {
      // the package row comes back (the statements before it answer nothing)
      results: [[], [], [{ id: 41 }]],
      args: [
        3,
        {
          kind: 'app',
          values: {
            name: 'Kiosk',
            identifier: 'com.shop.kiosk',
            version_name: '3.1',
            version_code: 31,
            models: [],
            notes: '',
            meta: { label: 'Kiosk', certSha256: 'ab12', iconKey: '2026/01/01/icon-1.png' },
          },
          object: {
            key: '2026/01/01/kiosk-1.apk',
            size: 5242880,
            mime: 'application/vnd.android.package-archive',
            originalName: 'kiosk-3.1.apk',
          },
          icon: { key: '2026/01/01/icon-1.png', size: 4096, mime: 'image/png', originalName: 'icon.png' },
          sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
          createdBy: 12,
        },
      ],
    },
  ],
  markDeleted: [[3, 41]],
  countOpenTasks: [[3, 41]],
  findOpenTaskPackage: [['7f1c2a64-1b9e-4c1d-9a57-3f6d2c8e0b11']],
  withUploadStartLock: [[3, () => Promise.resolve(null)]],
});
