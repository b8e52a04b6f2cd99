import type { RawBuilder } from 'kysely';
import type { Db } from '../../db/database.ts';
import { DeviceGroupRepository } from './repository/groups.ts';
import { DeviceRepository } from './repository/index.ts';

/*
 * What other modules ask of the device module about the devices and groups their callers name: the statements
 * are the device module's; `db` may be the caller's transaction.
 */

/** How many of the devices `ids` are the tenant's and meet `within` (a data scope's condition on `devices`). */
export const countDevicesOf = (db: Db, tenantId: number, ids: number[], within?: RawBuilder<boolean>) =>
  new DeviceRepository(db).countOf(tenantId, ids, within);

/** How many of the device groups `ids` are the tenant's. */
export const countGroupsOf = (db: Db, tenantId: number, ids: number[]) =>
  new DeviceGroupRepository(db).countOf(tenantId, ids);
