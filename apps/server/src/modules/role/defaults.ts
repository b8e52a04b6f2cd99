import { PERMISSIONS } from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import { RoleRepository } from './repository.ts';

/**
 * Roles every customer tenant starts with, so a sub-account can be given device rights before the tenant has
 * defined roles of its own. Builtin but editable: created at registration (and lazily for older tenants), never
 * overwritten; an existing row of that code is only marked builtin.
 */
export const DEFAULT_CUSTOMER_ROLES = [
  {
    code: 'operator',
    name: 'Operator',
    description: '',
    permissions: [
      PERMISSIONS.deviceView,
      PERMISSIONS.deviceEdit,
      PERMISSIONS.deviceReboot,
      PERMISSIONS.deviceShutdown,
      PERMISSIONS.deviceTask,
      PERMISSIONS.flowRateView,
    ],
  },
  {
    code: 'viewer',
    name: 'Viewer',
    description: '',
    permissions: [PERMISSIONS.deviceView, PERMISSIONS.flowRateView],
  },
];

/** Makes sure a customer tenant has its default roles; `db` may be a transaction. */
export async function ensureDefaultRoles(db: Db, tenantId: number): Promise<void> {
  await new RoleRepository(db).insertDefaultRoles(tenantId, DEFAULT_CUSTOMER_ROLES);
}
