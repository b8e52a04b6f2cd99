import { sql, type Insertable, type Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { DeviceModels } from '../../db/generated.ts';
import { defineQueries } from '../../db/query-spec.ts';

const likeOf = (keyword: string) => `%${keyword.replace(/[\\%_]/g, '\\$&')}%`;

/** The devices of a model, counted in the statement that reads the model (`m`). */
const deviceCount = sql<number>`(select count(*) from devices d where d.model_id = m.id)`;

/** Every statement of the device model catalogue: `device_models`, and how many `devices` use a model. */
export class DeviceModelRepository {
  constructor(private db: Db) {}

  /** One model with its number of devices, or undefined. */
  findWithDeviceCount(id: number) {
    return this.db
      .selectFrom('device_models as m')
      .selectAll('m')
      .select(deviceCount.as('device_count'))
      .where('m.id', '=', id)
      .executeTakeFirst();
  }

  /** A page of models by code or name and kind, by code, with their numbers of devices; and how many match. */
  async list(q: { pageNo: number; pageSize: number; keyword?: string; kind?: 'printer' | 'android-terminal' }) {
    let query = this.db.selectFrom('device_models as m');
    if (q.keyword)
      query = query.where((eb) =>
        eb.or([eb('m.code', 'ilike', likeOf(q.keyword!)), eb('m.name', 'ilike', likeOf(q.keyword!))]),
      );
    if (q.kind) query = query.where('m.kind', '=', q.kind);
    const [rows, total] = await Promise.all([
      query
        .selectAll('m')
        .select(deviceCount.as('device_count'))
        .orderBy('m.code')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      query.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /** Every model, for pickers: by name. */
  options() {
    return this.db
      .selectFrom('device_models')
      .select(['id', 'code', 'name', 'kind', 'paper_width_mm'])
      .orderBy('name')
      .orderBy('id')
      .execute();
  }

  /** Whether another model (not `exceptId`) has the code, without regard to case. */
  async codeTaken(code: string, exceptId?: number): Promise<boolean> {
    let q = this.db
      .selectFrom('device_models')
      .select('id')
      .where(sql<boolean>`lower(code) = lower(${code})`);
    if (exceptId) q = q.where('id', '<>', exceptId);
    return (await q.executeTakeFirst()) !== undefined;
  }

  /** Adds a model; returns its id. */
  async insert(values: Insertable<DeviceModels>): Promise<number> {
    const row = await this.db.insertInto('device_models').values(values).returning('id').executeTakeFirstOrThrow();
    return row.id;
  }

  /** Changes a model; returns whether it exists. */
  async update(id: number, values: Updateable<DeviceModels>): Promise<boolean> {
    const res = await this.db.updateTable('device_models').set(values).where('id', '=', id).executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** How many devices use the model. */
  async devicesUsing(id: number): Promise<number> {
    const used = await this.db
      .selectFrom('devices')
      .select(sql<number>`count(*)`.as('n'))
      .where('model_id', '=', id)
      .executeTakeFirstOrThrow();
    return Number(used.n);
  }

  /** Deletes a model (a device using it: the foreign key refuses, 23503); returns whether it existed. */
  async delete(id: number): Promise<boolean> {
    const res = await this.db.deleteFrom('device_models').where('id', '=', id).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /** A model's fields as the system log shows them before → after. */
  loggedFields(id: number) {
    return this.db
      .selectFrom('device_models')
      .select(['code', 'name', 'kind', 'paper_width_mm as paperWidthMm', 'capabilities'])
      .where('id', '=', id)
      .executeTakeFirst();
  }
}

export const deviceModelQueries = defineQueries(DeviceModelRepository, {
  findWithDeviceCount: [[3]],
  list: [[{ pageNo: 1, pageSize: 20 }], [{ pageNo: 2, pageSize: 20, keyword: 'XP-58', kind: 'printer' }]],
  options: [[]],
  codeTaken: [['XP-58'], ['XP-58', 3]],
  insert: [
    {
      args: [{ code: 'XP-58', name: 'Xprinter 58', kind: 'printer', paper_width_mm: 58, capabilities: ['escpos'] }],
      results: [[{ id: 3 }]],
    },
  ],
  update: [[3, { name: 'Xprinter 58 II', paper_width_mm: 58 }]],
  devicesUsing: [{ args: [3], results: [[{ n: '0' }]] }],
  delete: [[3]],
  loggedFields: [[3]],
});
