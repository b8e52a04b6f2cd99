import { PERMISSIONS } from '@cpc/contracts';
import { dataAccessOf, type DataAccess } from '../../lib/data-scope.ts';
import { hasPermission, type AuthUser } from '../../plugins/auth.ts';
import { AppError } from '../../plugins/errors.ts';

/** Who calls: a customer (its tenant, its data scope) or staff holding workOrder:handle (every tenant). */
export interface Caller {
  user: AuthUser;
  staff: boolean;
  access: DataAccess;
  ip: string;
}

export function callerOf(user: AuthUser, ip: string): Caller {
  return { user, staff: user.tenantKind === 'platform', access: dataAccessOf(user), ip };
}

export function assertCustomer(c: Caller): void {
  if (c.staff) throw new AppError(403, 'workOrder.customersOnly');
}

export function assertStaff(c: Caller): void {
  if (!c.staff) throw new AppError(403, 'auth.staffOnly');
  if (!hasPermission(c.user, PERMISSIONS.workOrderHandle))
    throw new AppError(403, 'auth.permissionRequired', { permission: PERMISSIONS.workOrderHandle });
}
