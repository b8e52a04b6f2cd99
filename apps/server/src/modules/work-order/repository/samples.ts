import type { DataAccess } from '../../../lib/data-scope.ts';
import type { Reach } from './types.ts';

/** Sample values of the query specs (src/db/query-spec.ts): a customer of tenant 3 in department 5, and staff. */
export const DEPARTMENT_ACCESS: DataAccess = {
  scope: 'department',
  tenantId: 3,
  userId: 7,
  departmentId: 5,
  departmentPath: '1/5/',
};
export const CUSTOMER: Reach = { staff: false, access: DEPARTMENT_ACCESS };
export const STAFF: Reach = {
  staff: true,
  access: { scope: 'all', tenantId: 1, userId: 2, departmentId: null, departmentPath: null },
};
export const AT = new Date('2026-01-01T08:00:00Z');
export const PAGE = { offset: 0, pageSize: 20, cap: 1000 };
export const ORDER = {
  id: 41,
  tenant_id: 3,
  order_no: 'WO20260101000041',
  state: 'submitted',
  title: 'Printer offline',
  user_id: 7,
  assignee_id: null,
};
