import type { Selectable } from 'kysely';
import type { workOrderListQuery } from '@cpc/contracts';
import type { z } from 'zod';
import type { WorkOrders } from '../../../db/generated.ts';
import type { DataAccess } from '../../../lib/data-scope.ts';

export type OrderRow = Selectable<WorkOrders>;
/** An order with the account's name, the opener's and the assignee's. */
export type NamedOrder = OrderRow & {
  tenant_name: string;
  opener_nickname: string | null;
  opener_username: string | null;
  assignee_nickname: string | null;
  assignee_username: string | null;
};
export type ListQuery = z.output<typeof workOrderListQuery>;
export type Priority = OrderRow['priority'];

/** Whose orders a statement reaches: staff every tenant's, a customer its tenant's within its data scope. */
export interface Reach {
  staff: boolean;
  access: DataAccess;
}

/** `s` as a literal part of a LIKE pattern. */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');
