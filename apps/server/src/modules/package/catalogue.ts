import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sql, type Selectable } from 'kysely';
import {
  OPEN_TASK_STATES,
  PERMISSIONS,
  appGroupList,
  appGroupQuery,
  envelopeSchema,
  packageCreateBody,
  packageDetail,
  packageIdParams,
  packageItem,
  packageList,
  softwareListQuery,
  type PackageItem,
  type PackageKind,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { Packages } from '../../db/generated.ts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import { audit } from '../../lib/audit.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { actorOf, caller, hasPermission, type AuthUser } from '../../plugins/auth.ts';
import { AppError, badRequest, notFound, ok } from '../../plugins/errors.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';
import { readApk } from './apk.ts';
import type { ChunkedUploads } from './uploads.ts';

const EDIT: Record<PackageKind, string> = {
  firmware: PERMISSIONS.upgradeEdit,
  app: PERMISSIONS.applicationEdit,
  model: PERMISSIONS.aiLibraryEdit,
};
const VIEW: Record<PackageKind, string> = {
  firmware: PERMISSIONS.upgradeView,
  app: PERMISSIONS.applicationView,
  model: PERMISSIONS.aiLibraryView,
};
const kindsVisible = (u: AuthUser) => (Object.keys(VIEW) as PackageKind[]).filter((k) => hasPermission(u, VIEW[k]));

type Row = Selectable<Packages> & { creator?: string | null };

/** The SHA-256 of a file, read as a stream (a 2 GB package never sits in memory). */
export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const OPEN = sql.join(OPEN_TASK_STATES.map((s) => sql.lit(s)));

/** Unfinished device tasks that carry the package. */
async function openTasksOf(scope: TenantScope, id: number): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    SELECT count(*) AS n FROM device_tasks
    WHERE tenant_id = ${scope.tenantId} AND state IN (${OPEN}) AND params->>'packageId' = ${String(id)}`.execute(
    scope.db,
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * The package catalogue (issue 15): `POST /package/create` turns a finished chunked upload into a package (SHA-256
 * checked, an APK read), `GET /package/list`, `GET /package/apps` (my applications), `GET /package/:id`,
 * `POST /package/:id/delete` (soft; refused while an unfinished task uses it).
 */
export const packageRoutes: FastifyPluginAsyncZod<{
  db: Db;
  storage: ObjectStorage;
  uploads: ChunkedUploads;
  events: Pick<LiveEvents, 'publish'>;
}> = async (app, { db, storage, uploads, events }) => {
  const toItem = (r: Row): PackageItem => {
    const meta = (r.meta ?? {}) as Record<string, unknown>;
    const iconKey = typeof meta.iconKey === 'string' ? meta.iconKey : null;
    return {
      id: Number(r.id),
      kind: r.kind as PackageKind,
      name: r.name,
      identifier: r.identifier,
      versionName: r.version_name,
      versionCode: Number(r.version_code),
      size: Number(r.size),
      sha256: r.sha256,
      models: r.models,
      notes: r.notes,
      meta,
      iconUrl: iconKey ? storage.signedUrl(iconKey, 6 * 3600) : null,
      createdAt: new Date(r.created_at).toISOString(),
      createdBy: r.creator ?? null,
    };
  };
  const base = (scope: TenantScope) =>
    scope
      .selectFrom('packages')
      .leftJoin('users', 'users.id', 'packages.created_by')
      .selectAll('packages')
      .select('users.username as creator')
      .where('packages.deleted_at', 'is', null);

  const find = async (u: AuthUser, id: number): Promise<Row> => {
    const row = await base(u.scope).where('packages.id', '=', id).executeTakeFirst();
    // another tenant's package, a deleted one, or a kind the caller may not see: it does not exist for them
    if (!row || !kindsVisible(u).includes(row.kind as PackageKind)) throw notFound('software package');
    return row;
  };

  app.post(
    '/package/create',
    {
      config: { permission: [PERMISSIONS.upgradeEdit, PERMISSIONS.applicationEdit, PERMISSIONS.aiLibraryEdit] },
      schema: {
        tags: ['package'],
        summary:
          'A finished chunked upload becomes a package (firmware: upgrade:edit, app: application:edit, ' +
          'model: aiLibrary:edit); the SHA-256 given must be that of the bytes; an APK tells its own name and version',
        body: packageCreateBody,
        response: { 200: envelopeSchema(packageItem) },
      },
    },
    async (req) => {
      const u = caller(req);
      const body = req.body;
      if (!hasPermission(u, EDIT[body.kind])) throw new AppError(403, 'http.403');
      return uploads.locked(body.uploadId, async () => {
        const { meta: up, offset, part } = await uploads.open(body.uploadId, u.tenantId);
        if (up.userId !== u.id) throw notFound('upload');
        if (offset !== up.size)
          throw new AppError(409, 'package.uploadIncomplete', { offset, size: up.size }, { data: { offset } });
        await uploads.assemble(body.uploadId, part);
        const actual = await sha256Of(part);
        if (actual !== body.sha256) throw badRequest('sha256', 'package.sha256Mismatch', { actual });

        let values: {
          name: string;
          identifier: string;
          version_name: string;
          version_code: number;
          models: string[];
          notes: string;
          meta: Record<string, unknown>;
        };
        let icon: { key: string; bytes: Buffer; ext: string } | null = null;
        if (body.kind === 'app') {
          // bytes that are no APK, or that break a limit, stay refused: the upload goes rather than hold its place
          const apk = await readApk(part, up.name).catch(async (e: unknown) => {
            if (e instanceof AppError && e.code === 400) await uploads.remove(body.uploadId);
            throw e;
          });
          // deleted versions count for the certificate (devices may still run them), not for versions
          const all = await u.scope
            .selectFrom('packages')
            .select(['version_name', 'version_code', 'meta', 'deleted_at'])
            .where('kind', '=', 'app')
            .where('identifier', '=', apk.packageName)
            .orderBy('version_code', 'desc')
            .orderBy('id', 'desc')
            .execute();
          const newest = all.filter((r) => r.deleted_at === null);
          const cert = all.map((r) => (r.meta as { certSha256?: string }).certSha256).find(Boolean);
          if (cert && cert !== apk.certSha256)
            throw new AppError(
              409,
              'package.otherCertificate',
              { identifier: apk.packageName, expected: cert.slice(0, 16), actual: apk.certSha256.slice(0, 16) },
              { data: { expected: cert, actual: apk.certSha256 } },
            );
          if (newest.some((r) => r.version_name === apk.versionName))
            throw new AppError(409, 'package.versionExists', {
              identifier: apk.packageName,
              version: apk.versionName,
            });
          if (apk.icon) icon = { key: storage.newKey(`icon.${apk.icon.ext}`), ...apk.icon };
          values = {
            name: apk.label,
            identifier: apk.packageName,
            version_name: apk.versionName,
            version_code: apk.versionCode,
            models: [],
            notes: '',
            meta: {
              label: apk.label,
              minSdk: apk.minSdk,
              targetSdk: apk.targetSdk,
              permissions: apk.permissions,
              certSha256: apk.certSha256,
              certSubject: apk.certSubject,
              iconKey: icon?.key ?? null,
              // a lower version than the newest is taken (a roll-back build), and shown as such
              downgrade: newest.length > 0 && apk.versionCode < Number(newest[0]!.version_code),
            },
          };
        } else {
          const known = body.models.length
            ? await db.selectFrom('device_models').select('code').where('code', 'in', body.models).execute()
            : [];
          const missing = body.models.find((m) => !known.some((k) => k.code === m));
          if (missing) throw badRequest('models', 'package.unknownModel', { model: missing });
          values = {
            name: body.name,
            // firmware: its product line is its name; a model: its name
            identifier: body.name,
            version_name: body.versionName,
            version_code: 0,
            models: [...new Set(body.models)],
            notes: body.notes,
            meta:
              body.kind === 'model' ? { framework: body.framework, inputs: body.inputs, outputs: body.outputs } : {},
          };
        }

        const key = storage.newKey(up.name);
        const row = await u.scope
          .transaction(async (tx) => {
            await tx
              .insertInto('objects', {
                key,
                user_id: u.id,
                bucket: 'package',
                size: up.size,
                mime: body.kind === 'app' ? 'application/vnd.android.package-archive' : 'application/octet-stream',
                original_name: up.name.slice(0, 200),
              })
              .execute();
            if (icon)
              await tx
                .insertInto('objects', {
                  key: icon.key,
                  user_id: u.id,
                  bucket: 'package',
                  size: icon.bytes.length,
                  mime: `image/${icon.ext}`,
                  original_name: `icon.${icon.ext}`,
                })
                .execute();
            return tx
              .insertInto('packages', {
                kind: body.kind,
                ...values,
                meta: JSON.stringify(values.meta),
                object_key: key,
                size: up.size,
                sha256: actual,
                created_by: u.id,
              })
              .returningAll()
              .executeTakeFirstOrThrow();
          })
          .catch((e: unknown) => {
            if ((e as { code?: string }).code === '23505')
              throw new AppError(409, 'package.versionExists', {
                identifier: values.identifier,
                version: values.version_name,
              });
            throw e;
          });
        // the row is committed: the bytes move into place (a link on the same disk, or into the bucket)
        await storage.commit(
          part,
          key,
          body.kind === 'app' ? 'application/vnd.android.package-archive' : 'application/octet-stream',
        );
        if (icon) await storage.write(icon.key, icon.bytes, `image/${icon.ext}`);
        await uploads.remove(body.uploadId);
        await audit(db, {
          ...actorOf(req),
          action: 'package.create',
          resource: 'package',
          resourceId: row.id,
          result: 'ok',
          changes: {
            kind: { before: null, after: row.kind },
            identifier: { before: null, after: row.identifier },
            versionName: { before: null, after: row.version_name },
            size: { before: null, after: Number(row.size) },
            sha256: { before: null, after: row.sha256 },
          },
        });
        events.publish(u.tenantId, { type: 'package', data: { id: Number(row.id), kind: body.kind } });
        return ok(toItem({ ...row, creator: u.username }));
      });
    },
  );

  const viewAny = [PERMISSIONS.upgradeView, PERMISSIONS.applicationView, PERMISSIONS.aiLibraryView];

  app.get(
    '/package/list',
    {
      config: { permission: viewAny },
      schema: {
        tags: ['package'],
        summary: 'Packages of the kinds the caller may see, newest first, server-paged',
        querystring: softwareListQuery,
        response: { 200: envelopeSchema(packageList) },
      },
    },
    async (req) => {
      const u = caller(req);
      const q = req.query;
      const kinds = kindsVisible(u).filter((k) => !q.kind || k === q.kind);
      if (!kinds.length) return ok({ list: [], total: 0 });
      let query = base(u.scope).where('packages.kind', 'in', kinds);
      if (q.identifier) query = query.where('packages.identifier', '=', q.identifier);
      if (q.keyword) {
        const like = `%${q.keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
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
      return ok({ list: rows.map(toItem), total: Number(count?.n ?? 0) });
    },
  );

  app.get(
    '/package/apps',
    {
      config: { permission: PERMISSIONS.applicationView },
      schema: {
        tags: ['package'],
        summary: 'My applications: one row per package name with its newest version, the number of versions',
        querystring: appGroupQuery,
        response: { 200: envelopeSchema(appGroupList) },
      },
    },
    async (req) => {
      const u = caller(req);
      const q = req.query;
      const like = q.keyword ? `%${q.keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
      const { rows } = await sql<{
        identifier: string;
        versions: string;
        total_size: string;
        latest: string;
        n: string;
      }>`
        WITH g AS (
          SELECT identifier, count(*) AS versions, sum(size) AS total_size,
            (array_agg(id ORDER BY version_code DESC, created_at DESC, id DESC))[1] AS latest,
            max(created_at) AS last_at
          FROM packages
          WHERE tenant_id = ${u.tenantId} AND kind = 'app' AND deleted_at IS NULL
            AND (${like}::text IS NULL OR name ILIKE ${like} OR identifier ILIKE ${like})
          GROUP BY identifier
        )
        SELECT identifier, versions, total_size, latest, count(*) OVER () AS n FROM g
        ORDER BY last_at DESC, identifier
        LIMIT ${q.pageSize} OFFSET ${(q.pageNo - 1) * q.pageSize}`.execute(db);
      const latest = rows.length
        ? await base(u.scope)
            .where(
              'packages.id',
              'in',
              rows.map((r) => Number(r.latest)),
            )
            .execute()
        : [];
      const byId = new Map(latest.map((r) => [String(r.id), r]));
      return ok({
        list: rows.flatMap((r) => {
          const l = byId.get(String(r.latest));
          return l
            ? [
                {
                  identifier: r.identifier,
                  latest: toItem(l),
                  versions: Number(r.versions),
                  totalSize: Number(r.total_size),
                },
              ]
            : [];
        }),
        total: Number(rows[0]?.n ?? 0),
      });
    },
  );

  app.get(
    '/package/:id',
    {
      config: { permission: viewAny },
      schema: {
        tags: ['package'],
        summary: 'A package: its fields, meta, icon, a signed download link, the device models it fits',
        params: packageIdParams,
        response: { 200: envelopeSchema(packageDetail) },
      },
    },
    async (req) => {
      const u = caller(req);
      const row = await find(u, req.params.id);
      const fits = row.models.length
        ? await db
            .selectFrom('device_models')
            .select(['code', 'name'])
            .where('code', 'in', row.models)
            .orderBy('code')
            .execute()
        : [];
      return ok({
        ...toItem(row),
        downloadUrl: storage.signedUrl(row.object_key),
        fits,
        openTasks: await openTasksOf(u.scope, Number(row.id)),
      });
    },
  );

  app.post(
    '/package/:id/delete',
    {
      config: { permission: [PERMISSIONS.upgradeEdit, PERMISSIONS.applicationEdit, PERMISSIONS.aiLibraryEdit] },
      schema: {
        tags: ['package'],
        summary: 'Delete a package (kept for history with deleted_at); refused while an unfinished task uses it',
        params: packageIdParams,
        response: { 200: envelopeSchema(packageItem) },
      },
    },
    async (req) => {
      const u = caller(req);
      const row = await find(u, req.params.id);
      if (!hasPermission(u, EDIT[row.kind as PackageKind])) throw new AppError(403, 'http.403');
      const open = await openTasksOf(u.scope, Number(row.id));
      if (open) throw new AppError(409, 'package.inUse', { n: open }, { data: { openTasks: open } });
      const done = await u.scope
        .updateTable('packages')
        .set({ deleted_at: new Date() })
        .where('id', '=', row.id)
        .where('deleted_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (!done) throw notFound('software package');
      await audit(db, {
        ...actorOf(req),
        action: 'package.delete',
        resource: 'package',
        resourceId: row.id,
        result: 'ok',
        changes: { deletedAt: { before: null, after: done.deleted_at } },
        details: { kind: row.kind, identifier: row.identifier, versionName: row.version_name },
      });
      events.publish(u.tenantId, { type: 'package', data: { id: Number(row.id), kind: row.kind as PackageKind } });
      return ok(toItem({ ...done, creator: row.creator }));
    },
  );
};
