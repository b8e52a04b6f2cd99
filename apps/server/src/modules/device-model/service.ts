import type {
  DeviceModelBody,
  DeviceModelEditBody,
  DeviceModelOption,
  DeviceModelView,
} from '@cpc/contracts/device-model';
import type { Paged } from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import { DeviceModelRepository } from './repository.ts';

/** The platform's device model catalogue (DESIGN §4). */
export class DeviceModelService {
  private repo: DeviceModelRepository;

  constructor(db: Db) {
    this.repo = new DeviceModelRepository(db);
  }

  private async view(id: number): Promise<DeviceModelView> {
    const m = await this.repo.findWithDeviceCount(id);
    if (!m) throw notFound('device model');
    return {
      id: m.id,
      code: m.code,
      name: m.name,
      kind: m.kind,
      paperWidthMm: m.paper_width_mm,
      capabilities: m.capabilities,
      deviceCount: Number(m.device_count),
      createdAt: m.created_at.toISOString(),
    };
  }

  async list(q: {
    pageNo: number;
    pageSize: number;
    keyword?: string;
    kind?: 'printer' | 'android-terminal';
  }): Promise<Paged<DeviceModelView>> {
    const { rows, total } = await this.repo.list(q);
    return {
      list: rows.map((m) => ({
        id: m.id,
        code: m.code,
        name: m.name,
        kind: m.kind,
        paperWidthMm: m.paper_width_mm,
        capabilities: m.capabilities,
        deviceCount: Number(m.device_count),
        createdAt: m.created_at.toISOString(),
      })),
      total,
    };
  }

  async options(): Promise<DeviceModelOption[]> {
    const rows = await this.repo.options();
    return rows.map((m) => ({ id: m.id, code: m.code, name: m.name, kind: m.kind, paperWidthMm: m.paper_width_mm }));
  }

  /** Codes are unique without regard to case, since CSV imports name models by code as typed. */
  private async assertCodeFree(code: string, exceptId?: number): Promise<void> {
    if (await this.repo.codeTaken(code, exceptId)) throw badRequest('code', 'deviceModel.codeTaken');
  }

  async add(body: Required<DeviceModelBody>): Promise<DeviceModelView> {
    await this.assertCodeFree(body.code);
    const id = await this.repo
      .insert({
        code: body.code,
        name: body.name,
        kind: body.kind,
        paper_width_mm: body.paperWidthMm,
        capabilities: body.capabilities,
      })
      .catch(uniqueCode);
    return this.view(id);
  }

  async edit(body: DeviceModelEditBody): Promise<DeviceModelView> {
    if (body.code !== undefined) await this.assertCodeFree(body.code, body.id);
    const set = {
      ...(body.code !== undefined ? { code: body.code } : {}),
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.kind !== undefined ? { kind: body.kind } : {}),
      ...(body.paperWidthMm !== undefined ? { paper_width_mm: body.paperWidthMm } : {}),
      ...(body.capabilities !== undefined ? { capabilities: body.capabilities } : {}),
    };
    if (Object.keys(set).length) {
      const found = await this.repo.update(body.id, set).catch(uniqueCode);
      if (!found) throw notFound('device model');
    }
    return this.view(body.id);
  }

  private usedBy(id: number): Promise<number> {
    return this.repo.devicesUsing(id);
  }

  /** A model's fields as the system log shows them before → after (undefined: no such model). */
  loggedFields(id: number) {
    return this.repo.loggedFields(id);
  }

  /**
   * A model devices use stays. The count answers the usual case with its number; a device registered with the
   * model between the count and the delete makes the foreign key refuse the delete, which is the same answer.
   */
  async remove(id: number): Promise<void> {
    const used = await this.usedBy(id);
    if (used > 0) throw new AppError(400, 'deviceModel.inUse', { n: used });
    const found = await this.repo.delete(id).catch(async (e: unknown) => {
      if ((e as { code?: string }).code === '23503')
        throw new AppError(400, 'deviceModel.inUse', { n: Math.max(1, await this.usedBy(id)) });
      throw e;
    });
    if (!found) throw notFound('device model');
  }
}

/** Two staff adding the same code at once: the unique index answers, as a field error. */
function uniqueCode(e: unknown): never {
  if ((e as { code?: string }).code === '23505') throw badRequest('code', 'deviceModel.codeTaken');
  throw e;
}
