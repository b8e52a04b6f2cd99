import { FILE_CHUNK_MAX_BYTES, FILE_PRESETS, isAllowedPath, type FileRequestItem, type Paged } from '@cpc/contracts';
import type { z } from 'zod';
import type { fileRequestBody, fileRequestListQuery } from '@cpc/contracts/file-acquisition';
import type { Db } from '../../db/database.ts';
import { changedFields } from '../../lib/audit.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { dataAccessOf, type DataAccess } from '../../lib/data-scope.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { badRequest, notFound } from '../../plugins/errors.ts';
import type { ChangedTask, EventSink, TaskService } from '../task/index.ts';
import { AcquiredFiles } from './files.ts';
import { FileAcquisitionRepository, type RequestFilter, type RequestListRow } from './repository.ts';
import { DeviceUploads } from './uploads.ts';

export { parseContentRange } from './uploads.ts';

const UPLOAD = 'device-upload';
const FILE = 'acquired-file';

/** Who a system-log entry names: the tenant, the user and the client address. */
export interface Actor {
  tenantId: number;
  userId: number;
  ip: string;
}

const toItem = (r: RequestListRow): FileRequestItem => ({
  id: Number(r.id),
  deviceId: Number(r.device_id),
  deviceSn: r.sn,
  deviceName: r.name,
  preset: r.preset,
  pattern: r.pattern,
  maxBytes: Number(r.max_bytes),
  state: r.state,
  progress: Number(r.total) > 0 ? Math.floor((Number(r.received) * 100) / Number(r.total)) : 0,
  error:
    r.state === 'failed'
      ? r.error || (r.task_state === 'canceled' ? 'canceled' : 'the device finished without uploading a file')
      : '',
  fileName: r.file_name,
  size: Number(r.size),
  createdAt: r.created_at.toISOString(),
  expireAt: r.expire_at.toISOString(),
  completedAt: r.completed_at?.toISOString() ?? null,
  taskId: r.task_id,
});

/** The signed link a device uploads its request's file to (bound to the request, expiring with its task). */
export function deviceUploadUrl(storage: ObjectStorage, requestId: number, expireAt: Date, base = ''): string {
  const exp = Math.floor(+expireAt / 1000);
  return `${base}/apiAdmin/device-files/upload/${requestId}?exp=${exp}&sig=${storage.signFor(UPLOAD, String(requestId), exp)}`;
}

/**
 * File requests (issue 15): the console asks devices for files; each device gets a `fetch_file` task and uploads
 * what matched in chunks to a signed link bound to its own request; the finished file is an object (bucket
 * 'acquired') kept FILE_KEEP_DAYS days. The device's side is in uploads.ts (`DeviceUploads`), the statements in
 * repository.ts.
 */
export class FileAcquisitionService {
  private repo: FileAcquisitionRepository;
  private files: AcquiredFiles;
  private uploads: DeviceUploads;

  constructor(
    db: Db,
    private storage: ObjectStorage,
    private tasks: TaskService,
    private events: EventSink,
  ) {
    this.repo = new FileAcquisitionRepository(db);
    this.files = new AcquiredFiles(storage);
    this.uploads = new DeviceUploads(this.repo, this.files, events);
  }

  uploadUrl(requestId: number, expireAt: Date, base = ''): string {
    return deviceUploadUrl(this.storage, requestId, expireAt, base);
  }

  checkUpload(requestId: number, exp: number, sig: string): boolean {
    return this.storage.checkSigned(UPLOAD, String(requestId), exp, sig);
  }

  /** A signed link to download an acquired file, for an hour. */
  fileUrl(requestId: number, ttlS = 3600): string {
    const exp = Math.floor(Date.now() / 1000) + ttlS;
    return `/apiAdmin/device-files/acquired/${requestId}?exp=${exp}&sig=${this.storage.signFor(FILE, String(requestId), exp)}`;
  }

  checkFile(requestId: number, exp: number, sig: string): boolean {
    return this.storage.checkSigned(FILE, String(requestId), exp, sig);
  }

  /** Where the bytes received so far of a request wait (beside the objects: completing is a rename). */
  partialOf(requestId: number): string {
    return this.files.partialOf(requestId);
  }

  async create(u: AuthUser, body: z.infer<typeof fileRequestBody>): Promise<FileRequestItem[]> {
    if (!!body.preset === !!body.path)
      throw badRequest(body.preset ? 'path' : 'preset', 'fileAcquisition.whatRequired');
    if (body.path !== undefined && !isAllowedPath(body.path))
      throw badRequest('path', 'fileAcquisition.pathNotAllowed');
    const pattern = body.preset ? FILE_PRESETS[body.preset] : body.path!;
    const access = dataAccessOf(u);
    const deviceIds = [...new Set(body.deviceIds)];
    if ((await this.repo.countDevicesInReach(u.tenantId, access, deviceIds)) !== deviceIds.length)
      throw notFound('device');
    const expireAt = new Date(Date.now() + body.expireHours * 3600_000);
    const { ids, tasks } = await this.repo.transaction(async (tx) => {
      const ids = await tx.nextIds(deviceIds.length);
      const tasks = await tx.enqueueTasks(
        u.tenantId,
        deviceIds.map((deviceId, i) => ({
          deviceId,
          type: 'fetch_file' as const,
          params: {
            requestId: ids[i],
            pattern,
            preset: body.preset ?? '',
            maxBytes: body.maxBytes,
            chunkBytes: FILE_CHUNK_MAX_BYTES,
          },
          expireAt,
          createdBy: u.id,
          maxAttempts: 10,
        })),
      );
      await tx.insertRequests(
        u.tenantId,
        deviceIds.map((deviceId, i) => ({
          id: ids[i],
          device_id: deviceId,
          task_id: tasks[i].id,
          preset: body.preset ?? '',
          pattern,
          max_bytes: body.maxBytes,
          created_by: u.id,
        })),
      );
      return { ids, tasks };
    });
    this.tasks.announce(tasks);
    await this.tasks.dispatch(tasks.map((t) => t.id));
    ids.forEach((id, i) =>
      this.events.publish(
        u.tenantId,
        { type: 'fileAcquisition', data: { id, state: 'created' } },
        { devices: [deviceIds[i]] },
      ),
    );
    return (await this.query(u.tenantId, access, { ids, pageSize: ids.length })).list;
  }

  async list(u: AuthUser, q: z.infer<typeof fileRequestListQuery>): Promise<Paged<FileRequestItem>> {
    return this.query(u.tenantId, dataAccessOf(u), q);
  }

  private async query(tenantId: number, access: DataAccess, q: RequestFilter): Promise<Paged<FileRequestItem>> {
    const rows = await this.repo.listPage(tenantId, access, q);
    return { list: rows.map(toItem), total: Number(rows[0]?.n ?? 0) };
  }

  /** One request the caller may see (its tenant, its data scope), else 404. */
  async get(u: AuthUser, id: number): Promise<FileRequestItem & { objectKey: string | null }> {
    const item = (await this.query(u.tenantId, dataAccessOf(u), { ids: [id] })).list[0];
    if (!item) throw notFound('file request');
    return { ...item, objectKey: await this.repo.objectKeyOf(u.tenantId, id) };
  }

  /** Deletes requests (their open tasks canceled, their files and partial uploads removed). */
  async remove(u: AuthUser, ids: number[]): Promise<FileRequestItem[]> {
    const items = (await this.query(u.tenantId, dataAccessOf(u), { ids, pageSize: 200 })).list;
    if (items.length !== new Set(ids).size) throw notFound('file request');
    const canceled = await this.repo.transaction(async (tx) => {
      const rows = await tx.cancelOpenTasks(
        u.tenantId,
        items.map((i) => i.taskId),
        new Date(),
      );
      await this.files.deleteRequests(tx, u.tenantId, ids);
      return rows;
    });
    this.tasks.announce(canceled);
    for (const item of items)
      this.events.publish(
        u.tenantId,
        { type: 'fileAcquisition', data: { id: item.id, state: 'deleted' } },
        { devices: [item.deviceId] },
      );
    return items;
  }

  // ------------------------------------------------------------------------------------------------------------
  // The system log of the console's actions

  /** One entry per new request, naming its device. */
  async logRequested(actor: Actor, items: FileRequestItem[]): Promise<void> {
    for (const i of items)
      await this.repo.audit({
        ...actor,
        action: 'fileAcquisition.request',
        result: 'ok',
        resource: 'file_request',
        resourceId: i.id,
        subject: i.deviceSn,
        changes: changedFields(
          {},
          { device: i.deviceSn, pattern: i.pattern, maxBytes: i.maxBytes, expireAt: i.expireAt },
        ),
      });
  }

  /** The entry of a download link handed out for a request's file. */
  async logDownload(actor: Actor, item: FileRequestItem): Promise<void> {
    await this.repo.audit({
      ...actor,
      action: 'fileAcquisition.download',
      result: 'ok',
      resource: 'file_request',
      resourceId: item.id,
      subject: item.fileName,
    });
  }

  /** One entry per deleted request. */
  async logDeleted(actor: Actor, items: FileRequestItem[]): Promise<void> {
    for (const i of items)
      await this.repo.audit({
        ...actor,
        action: 'fileAcquisition.delete',
        result: 'ok',
        resource: 'file_request',
        resourceId: i.id,
        subject: i.deviceSn,
        changes: changedFields({ pattern: i.pattern, state: i.state, fileName: i.fileName }, {}),
      });
  }

  // ------------------------------------------------------------------------------------------------------------
  // The device's side (uploads.ts)

  offset(...a: Parameters<DeviceUploads['offset']>) {
    return this.uploads.offset(...a);
  }

  chunk(...a: Parameters<DeviceUploads['chunk']>) {
    return this.uploads.chunk(...a);
  }

  fileOf(...a: Parameters<DeviceUploads['fileOf']>) {
    return this.uploads.fileOf(...a);
  }

  download(...a: Parameters<DeviceUploads['download']>) {
    return this.uploads.download(...a);
  }

  sweep(...a: Parameters<DeviceUploads['sweep']>) {
    return this.uploads.sweep(...a);
  }

  /** Tells the consoles a request's task changed (delivered, failed, expired…). */
  onTask(row: ChangedTask): void {
    if (row.type !== 'fetch_file') return;
    const p = row.params as { requestId?: unknown } | null;
    if (typeof p?.requestId !== 'number') return;
    this.events.publish(
      row.tenant_id,
      { type: 'fileAcquisition', data: { id: p.requestId, state: row.state } },
      { devices: [Number(row.device_id)] },
    );
  }
}
