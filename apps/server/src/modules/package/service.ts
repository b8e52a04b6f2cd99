import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { z } from 'zod';
import {
  PERMISSIONS,
  type AppGroupList,
  type PackageDetail,
  type PackageItem,
  type PackageKind,
  type appGroupQuery,
  type packageCreateBody,
  type softwareListQuery,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { hasPermission, type AuthUser } from '../../plugins/auth.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';
import { readApk } from './apk.ts';
import { PackageRepository, type PackageObject, type PackageRow, type PackageValues } from './repository.ts';
import type { ChunkedUploads, UploadMeta } from './uploads.ts';

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

const APK_MIME = 'application/vnd.android.package-archive';
const mimeOf = (kind: PackageKind) => (kind === 'app' ? APK_MIME : 'application/octet-stream');

/** Who acts, for the system log. */
export interface PackageActor {
  tenantId: number;
  userId: number;
  ip: string;
}

type CreateBody = z.output<typeof packageCreateBody>;
type Icon = { key: string; bytes: Buffer; ext: string };

/** The SHA-256 of a file, read as a stream (a 2 GB package never sits in memory). */
export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * The package catalogue's rules: a finished chunked upload becomes a package (SHA-256 checked, an APK read and held
 * to its certificate and versions), packages are listed and read by the kinds the caller may see, and a package
 * is deleted (soft) only while no unfinished task uses it.
 */
export class PackageService {
  private repo: PackageRepository;

  constructor(
    db: Db,
    private storage: ObjectStorage,
    private uploads: ChunkedUploads,
    private events: Pick<LiveEvents, 'publish'>,
  ) {
    this.repo = new PackageRepository(db);
  }

  toItem(r: PackageRow): PackageItem {
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
      iconUrl: iconKey ? this.storage.signedUrl(iconKey, 6 * 3600) : null,
      createdAt: new Date(r.created_at).toISOString(),
      createdBy: r.creator ?? null,
    };
  }

  /** The package as the caller may see it: another tenant's, a deleted one, or a kind it may not see is not there. */
  private async find(u: AuthUser, id: number): Promise<PackageRow> {
    const row = await this.repo.findLive(u.tenantId, id);
    if (!row || !kindsVisible(u).includes(row.kind as PackageKind)) throw notFound('software package');
    return row;
  }

  /** A finished chunked upload of the caller becomes a package of `body.kind` (refused without that kind's edit). */
  async create(u: AuthUser, actor: PackageActor, body: CreateBody): Promise<PackageItem> {
    if (!hasPermission(u, EDIT[body.kind])) throw new AppError(403, 'http.403');
    return this.uploads.locked(body.uploadId, async () => {
      const { meta: up, offset, part } = await this.uploads.open(body.uploadId, u.tenantId);
      if (up.userId !== u.id) throw notFound('upload');
      if (offset !== up.size)
        throw new AppError(409, 'package.uploadIncomplete', { offset, size: up.size }, { data: { offset } });
      await this.uploads.assemble(body.uploadId, part);
      const actual = await sha256Of(part);
      if (actual !== body.sha256) throw badRequest('sha256', 'package.sha256Mismatch', { actual });
      const { values, icon } =
        body.kind === 'app' ? await this.appValues(u, body.uploadId, part, up) : await this.fileValues(body);
      const row = await this.store(u, body.kind, { part, up, values, icon, sha256: actual });
      await this.uploads.remove(body.uploadId);
      await this.repo.audit({
        ...actor,
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
      this.events.publish(u.tenantId, { type: 'package', data: { id: Number(row.id), kind: body.kind } });
      return this.toItem({ ...row, creator: u.username });
    });
  }

  /**
   * An app's fields, read from its APK: refused when signed by another certificate than the app's earlier
   * versions (deleted ones count: devices may still run them) or when its version exists (deleted ones do not).
   */
  private async appValues(
    u: AuthUser,
    uploadId: string,
    part: string,
    up: UploadMeta,
  ): Promise<{ values: PackageValues; icon: Icon | null }> {
    // bytes that are no APK, or that break a limit, stay refused: the upload goes rather than hold its place
    const apk = await readApk(part, up.name).catch(async (e: unknown) => {
      if (e instanceof AppError && e.code === 400) await this.uploads.remove(uploadId);
      throw e;
    });
    const all = await this.repo.listAppVersions(u.tenantId, apk.packageName);
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
      throw new AppError(409, 'package.versionExists', { identifier: apk.packageName, version: apk.versionName });
    const icon = apk.icon ? { key: this.storage.newKey(`icon.${apk.icon.ext}`), ...apk.icon } : null;
    const values: PackageValues = {
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
    return { values, icon };
  }

  /** Firmware's or an AI model's fields, as given; every device model named must exist. */
  private async fileValues(
    body: Exclude<CreateBody, { kind: 'app' }>,
  ): Promise<{ values: PackageValues; icon: Icon | null }> {
    const known = await this.repo.knownModelCodes(body.models);
    const missing = body.models.find((m) => !known.includes(m));
    if (missing) throw badRequest('models', 'package.unknownModel', { model: missing });
    const values: PackageValues = {
      name: body.name,
      // firmware: its product line is its name; a model: its name
      identifier: body.name,
      version_name: body.versionName,
      version_code: 0,
      models: [...new Set(body.models)],
      notes: body.notes,
      meta: body.kind === 'model' ? { framework: body.framework, inputs: body.inputs, outputs: body.outputs } : {},
    };
    return { values, icon: null };
  }

  /** The package's rows are committed, then its bytes (and icon) move into place. */
  private async store(
    u: AuthUser,
    kind: PackageKind,
    p: { part: string; up: UploadMeta; values: PackageValues; icon: Icon | null; sha256: string },
  ) {
    const key = this.storage.newKey(p.up.name);
    const object: PackageObject = { key, size: p.up.size, mime: mimeOf(kind), originalName: p.up.name.slice(0, 200) };
    const icon: PackageObject | null = p.icon
      ? { key: p.icon.key, size: p.icon.bytes.length, mime: `image/${p.icon.ext}`, originalName: `icon.${p.icon.ext}` }
      : null;
    const row = await this.repo
      .insertPackage(u.tenantId, { kind, values: p.values, object, icon, sha256: p.sha256, createdBy: u.id })
      .catch((e: unknown) => {
        if ((e as { code?: string }).code === '23505')
          throw new AppError(409, 'package.versionExists', {
            identifier: p.values.identifier,
            version: p.values.version_name,
          });
        throw e;
      });
    // the row is committed: the bytes move into place (a link on the same disk, or into the bucket)
    await this.storage.commit(p.part, key, mimeOf(kind));
    if (p.icon) await this.storage.write(p.icon.key, p.icon.bytes, `image/${p.icon.ext}`);
    return row;
  }

  /** Packages of the kinds the caller may see (and asked for), newest first, a page of them. */
  async list(u: AuthUser, q: z.output<typeof softwareListQuery>): Promise<{ list: PackageItem[]; total: number }> {
    const kinds = kindsVisible(u).filter((k) => !q.kind || k === q.kind);
    if (!kinds.length) return { list: [], total: 0 };
    const { rows, total } = await this.repo.listPage(u.tenantId, { ...q, kinds });
    return { list: rows.map((r) => this.toItem(r)), total };
  }

  /** My applications: one row per package name with its newest version and the number of versions. */
  async appGroups(u: AuthUser, q: z.output<typeof appGroupQuery>): Promise<AppGroupList> {
    const rows = await this.repo.listAppGroups(u.tenantId, q);
    const latest = rows.length
      ? await this.repo.listLiveByIds(
          u.tenantId,
          rows.map((r) => Number(r.latest)),
        )
      : [];
    const byId = new Map(latest.map((r) => [String(r.id), r]));
    return {
      list: rows.flatMap((r) => {
        const l = byId.get(String(r.latest));
        return l
          ? [
              {
                identifier: r.identifier,
                latest: this.toItem(l),
                versions: Number(r.versions),
                totalSize: Number(r.total_size),
              },
            ]
          : [];
      }),
      total: Number(rows[0]?.n ?? 0),
    };
  }

  /** A package with a signed download link, the device models it fits and the unfinished tasks that carry it. */
  async detail(u: AuthUser, id: number): Promise<PackageDetail> {
    const row = await this.find(u, id);
    const fits = await this.repo.listModels(row.models);
    return {
      ...this.toItem(row),
      downloadUrl: this.storage.signedUrl(row.object_key),
      fits,
      openTasks: await this.repo.countOpenTasks(u.tenantId, Number(row.id)),
    };
  }

  /** Deletes a package (kept with deleted_at); refused while an unfinished task uses it. */
  async remove(u: AuthUser, actor: PackageActor, id: number): Promise<PackageItem> {
    const row = await this.find(u, id);
    if (!hasPermission(u, EDIT[row.kind as PackageKind])) throw new AppError(403, 'http.403');
    const open = await this.repo.countOpenTasks(u.tenantId, Number(row.id));
    if (open) throw new AppError(409, 'package.inUse', { n: open }, { data: { openTasks: open } });
    const done = await this.repo.markDeleted(u.tenantId, Number(row.id));
    if (!done) throw notFound('software package');
    await this.repo.audit({
      ...actor,
      action: 'package.delete',
      resource: 'package',
      resourceId: row.id,
      result: 'ok',
      changes: { deletedAt: { before: null, after: done.deleted_at } },
      details: { kind: row.kind, identifier: row.identifier, versionName: row.version_name },
    });
    this.events.publish(u.tenantId, { type: 'package', data: { id: Number(row.id), kind: row.kind as PackageKind } });
    return this.toItem({ ...done, creator: row.creator });
  }
}
