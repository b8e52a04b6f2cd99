import { sql } from 'kysely';
import type {
  DeviceModelBody,
  DeviceModelEditBody,
  DeviceModelOption,
  DeviceModelView,
} from '@cpc/contracts/device-model';
import type { Paged } from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';

const likeOf = (keyword: string) => `%${keyword.replace(/[\\%_]/g, '\\$&')}%`;

/** The platform's device model catalogue (DESIGN §4). */
export class DeviceModelService {
  constructor(private db: Db) {}

  private async view(id: number): Promise<DeviceModelView> {
    const m = await this.db
      .selectFrom('device_models as m')
      .selectAll('m')
      .select(sql<number>`(select count(*) from devices d where d.model_id = m.id)`.as('device_count'))
      .where('m.id', '=', id)
      .executeTakeFirst();
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
    let query = this.db.selectFrom('device_models as m');
    if (q.keyword)
      query = query.where((eb) =>
        eb.or([eb('m.code', 'ilike', likeOf(q.keyword!)), eb('m.name', 'ilike', likeOf(q.keyword!))]),
      );
    if (q.kind) query = query.where('m.kind', '=', q.kind);
    const [rows, total] = await Promise.all([
      query
        .selectAll('m')
        .select(sql<number>`(select count(*) from devices d where d.model_id = m.id)`.as('device_count'))
        .orderBy('m.code')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      query.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
    ]);
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
      total: Number(total.n),
    };
  }

  async options(): Promise<DeviceModelOption[]> {
    const rows = await this.db
      .selectFrom('device_models')
      .select(['id', 'code', 'name', 'kind', 'paper_width_mm'])
      .orderBy('name')
      .orderBy('id')
      .execute();
    return rows.map((m) => ({ id: m.id, code: m.code, name: m.name, kind: m.kind, paperWidthMm: m.paper_width_mm }));
  }

  /** Codes are unique without regard to case, since CSV imports name models by code as typed. */
  private async assertCodeFree(code: string, exceptId?: number): Promise<void> {
    let q = this.db
      .selectFrom('device_models')
      .select('id')
      .where(sql<boolean>`lower(code) = lower(${code})`);
    if (exceptId) q = q.where('id', '<>', exceptId);
    if (await q.executeTakeFirst()) throw badRequest('code', 'deviceModel.codeTaken');
  }

  async add(body: Required<DeviceModelBody>): Promise<DeviceModelView> {
    await this.assertCodeFree(body.code);
    const row = await this.db
      .insertInto('device_models')
      .values({
        code: body.code,
        name: body.name,
        kind: body.kind,
        paper_width_mm: body.paperWidthMm,
        capabilities: body.capabilities,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
      .catch(uniqueCode);
    return this.view(row.id);
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
      const res = await this.db
        .updateTable('device_models')
        .set(set)
        .where('id', '=', body.id)
        .executeTakeFirst()
        .catch(uniqueCode);
      if (Number(res.numUpdatedRows) === 0) throw notFound('device model');
    }
    return this.view(body.id);
  }

  private async usedBy(id: number): Promise<number> {
    const used = await this.db
      .selectFrom('devices')
      .select(sql<number>`count(*)`.as('n'))
      .where('model_id', '=', id)
      .executeTakeFirstOrThrow();
    return Number(used.n);
  }

  /**
   * A model devices use stays. The count answers the usual case with its number; a device registered with the
   * model between the count and the delete makes the foreign key refuse the delete, which is the same answer.
   */
  async remove(id: number): Promise<void> {
    const used = await this.usedBy(id);
    if (used > 0) throw new AppError(400, 'deviceModel.inUse', { n: used });
    const res = await this.db
      .deleteFrom('device_models')
      .where('id', '=', id)
      .executeTakeFirst()
      .catch(async (e: unknown) => {
        if ((e as { code?: string }).code === '23503')
          throw new AppError(400, 'deviceModel.inUse', { n: Math.max(1, await this.usedBy(id)) });
        throw e;
      });
    if (Number(res.numDeletedRows) === 0) throw notFound('device model');
  }
}

/** Two staff adding the same code at once: the unique index answers, as a field error. */
function uniqueCode(e: unknown): never {
  if ((e as { code?: string }).code === '23505') throw badRequest('code', 'deviceModel.codeTaken');
  throw e;
}
