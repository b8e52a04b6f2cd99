import { sql } from 'kysely';
import { defineQueries } from '../../db/query-spec.ts';
import { Repository } from '../../db/repository.ts';

/** A device as the factory registers it: unbound, never seen. */
export interface NewDevice {
  sn: string;
  model_id: number;
  bind_key_hash: string;
  secret: string;
  iccid: string;
  imei: string;
}

/** The SIM a registered device comes with: no tenant, no plan yet. */
export interface NewSim {
  iccid: string;
  device_id: number;
  carrier: string;
}

/** The registry's filters and page. */
export interface RegistryQuery {
  pageNo: number;
  pageSize: number;
  keyword?: string;
  bound?: 'true' | 'false';
  modelId?: number;
}

const likeOf = (keyword: string) => `%${keyword.replace(/[\\%_]/g, '\\$&')}%`;

/**
 * Every statement of the registry of manufactured devices (staff, every tenant): the devices and SIMs the factory
 * registers, the model codes and numbers already taken, bind keys reissued, and the list with each owner.
 */
export class DeviceRegistryRepository extends Repository {
  /** The catalogue's models of these codes (lower case), matched without regard to case. */
  modelsByCode(codes: string[]): Promise<Array<{ id: number; code: string }>> {
    return this.db
      .selectFrom('device_models')
      .select(['id', 'code'])
      .where(sql<boolean>`lower(code) = any(${codes}::text[])`)
      .execute();
  }

  /** Which of these serial numbers (lower case) a device has already, in lower case. */
  takenSns(sns: string[]): Promise<Array<{ v: string }>> {
    return this.db
      .selectFrom('devices')
      .select(sql<string>`lower(sn)`.as('v'))
      .where(sql<boolean>`lower(sn) = any(${sns}::text[])`)
      .execute();
  }

  /** Which of these ICCIDs a device or a SIM has already. */
  takenIccids(iccids: string[]): Promise<Array<{ v: string | null }>> {
    return this.db
      .selectFrom('devices')
      .select('iccid as v')
      .where(sql<boolean>`iccid = any(${iccids}::text[])`)
      .union(
        this.db
          .selectFrom('sims')
          .select('iccid as v')
          .where(sql<boolean>`iccid = any(${iccids}::text[])`),
      )
      .execute();
  }

  /** Which of these IMEIs a device has already. */
  takenImeis(imeis: string[]): Promise<Array<{ v: string | null }>> {
    return this.db
      .selectFrom('devices')
      .select('imei as v')
      .where(sql<boolean>`imei = any(${imeis}::text[])`)
      .execute();
  }

  /** A device's new bind key (its hash); its id and serial number, or undefined for no such device. */
  setBindKeyHash(id: number, bindKeyHash: string) {
    return this.db
      .updateTable('devices')
      .set({ bind_key_hash: bindKeyHash })
      .where('id', '=', id)
      .returning(['id', 'sn'])
      .executeTakeFirst();
  }

  /** Registers devices, unbound and never seen, in one statement; answers their ids by serial number. */
  insertDevices(devices: NewDevice[]) {
    return this.db
      .insertInto('devices')
      .values(
        devices.map((d) => ({
          sn: d.sn,
          model_id: d.model_id,
          bind_key_hash: d.bind_key_hash,
          secret: d.secret,
          iccid: d.iccid,
          imei: d.imei,
          bound_at: null,
          group_id: null,
          connected_at: null,
          last_seen_at: null,
          battery: null,
          signal: null,
          lat: null,
          lng: null,
          located_at: null,
          tenant_id: null,
        })),
      )
      .returning(['id', 'sn'])
      .execute();
  }

  /** The registered devices' SIMs, unbound, without a plan, in one statement. */
  async insertSims(sims: NewSim[]): Promise<void> {
    await this.db
      .insertInto('sims')
      .values(
        sims.map((s) => ({
          iccid: s.iccid,
          device_id: s.device_id,
          tenant_id: null,
          carrier: s.carrier,
          plan_total_mb: 0,
          used_mb: 0,
          expires_at: null,
        })),
      )
      .execute();
  }

  /** A page of every device made, bound or not, newest first, with its model and its owner's name; and the count. */
  async list(q: RegistryQuery) {
    let query = this.db
      .selectFrom('devices as d')
      .innerJoin('device_models as m', 'm.id', 'd.model_id')
      .leftJoin('tenants as t', 't.id', 'd.tenant_id');
    if (q.bound === 'true') query = query.where('d.tenant_id', 'is not', null);
    if (q.bound === 'false') query = query.where('d.tenant_id', 'is', null);
    if (q.modelId) query = query.where('d.model_id', '=', q.modelId);
    if (q.keyword) {
      const like = likeOf(q.keyword);
      query = query.where((eb) =>
        eb.or([
          eb('d.sn', 'ilike', like),
          eb('d.iccid', '=', q.keyword!),
          eb('d.imei', '=', q.keyword!),
          eb('t.name', 'ilike', like),
        ]),
      );
    }
    const [rows, total] = await Promise.all([
      query
        .select([
          'd.id',
          'd.sn',
          'd.model_id',
          'm.code',
          'm.name as model_name',
          'd.tenant_id',
          't.name as tenant_name',
          'd.bound_at',
          'd.iccid',
          'd.imei',
          'd.status',
          'd.last_seen_at',
          'd.created_at',
        ])
        .orderBy('d.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      query.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }
}

export const deviceRegistryQueries = defineQueries(DeviceRegistryRepository, {
  modelsByCode: [[['xp-58', 'sunmi-v2']]],
  takenSns: [[['xp58-000101', 'xp58-000102']]],
  takenIccids: [[['89860012345678901234']]],
  takenImeis: [[['861234567890123']]],
  setBindKeyHash: [[101, 'hash-of-the-new-bind-key']],
  insertDevices: [
    [
      [
        {
          sn: 'XP58-000101',
          model_id: 2,
          bind_key_hash: 'hash-of-the-bind-key',
          secret: 'device-secret-of-24-bytes',
          iccid: '89860012345678901234',
          imei: '861234567890123',
        },
      ],
    ],
  ],
  insertSims: [[[{ iccid: '89860012345678901234', device_id: 101, carrier: 'China Mobile' }]]],
  list: [
    { args: [{ pageNo: 1, pageSize: 20 }], results: [[], [{ n: '0' }]] },
    {
      args: [{ pageNo: 2, pageSize: 20, keyword: 'XP58', bound: 'true', modelId: 2 }],
      results: [[], [{ n: '0' }]],
    },
    { args: [{ pageNo: 1, pageSize: 20, bound: 'false' }], results: [[], [{ n: '0' }]] },
  ],
});
