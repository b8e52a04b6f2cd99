import type { DataScope } from '@cpc/contracts';
import type { TenantScope } from '../db/tenant-scope.ts';

/** The signed-in caller, as `loadAuthUser` (plugins/auth.ts) reads it for each request. */
export interface AuthUser {
  id: number;
  tenantId: number;
  sessionId: string;
  username: string;
  isSuper: number;
  tenantKind: 'individual' | 'enterprise' | 'platform';
  authStatus: number;
  admin: boolean;
  roles: string[];
  permissions: string[];
  /** Its roles' data scopes, and its department with its path ("1/5/9/"): `dataAccessOf` reads them. */
  dataScopes: DataScope[];
  departmentId: number | null;
  departmentPath: string | null;
  /** Every tenant-owned query of this request goes through this scope. */
  scope: TenantScope;
}
