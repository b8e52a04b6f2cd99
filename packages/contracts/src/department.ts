import { z } from 'zod';
import { id, textLine } from './device.ts';

/**
 * Departments (issue 12): a tree per tenant. Users belong to at most one department; devices carry the
 * department of the user who bound them. A role's data scope `department` means "the user's department and
 * every department below it". Paths are under /apiAdmin; every answer is the `{code, msg, data}` envelope.
 *
 * | Route | Permission | Body | Answer |
 * | --- | --- | --- | --- |
 * | GET /system/department/tree | system:department:edit, system:user:edit or device:view | – | DepartmentNode[] |
 * | POST /system/department/add | system:department:edit | departmentAddBody | DepartmentView |
 * | POST /system/department/edit | system:department:edit | departmentEditBody (rename, move, reorder) | DepartmentView |
 * | POST /system/department/delete | system:department:edit | { id } (409 while it has children, users or devices) | null |
 */

export const DEPARTMENT_NAME_MAX = 30;
const nameField = textLine(DEPARTMENT_NAME_MAX).min(1, 'rule.nameRequired');

export const departmentAddBody = z
  .object({
    name: nameField,
    /** null: a top-level department. */
    parentId: id.nullable().default(null),
    sort: z.number().int().min(0).max(9999).optional(),
  })
  .strict();
export type DepartmentAddBody = z.input<typeof departmentAddBody>;

/**
 * Rename, move (a new `parentId`, null for the top level; refused when it would make a cycle) or reorder
 * (`sort` among siblings). Fields left out stay as they are.
 */
export const departmentEditBody = z
  .object({
    id,
    name: nameField.optional(),
    parentId: id.nullable().optional(),
    sort: z.number().int().min(0).max(9999).optional(),
  })
  .strict();
export type DepartmentEditBody = z.input<typeof departmentEditBody>;

export const departmentIdBody = z.object({ id }).strict();

export const departmentView = z.object({
  id: z.number().int(),
  name: z.string(),
  parentId: z.number().int().nullable(),
  sort: z.number().int(),
});
export type DepartmentView = z.infer<typeof departmentView>;

export interface DepartmentNode extends DepartmentView {
  /** Users of this department itself (not of those below). */
  userCount: number;
  /** Devices of this department itself. */
  deviceCount: number;
  children: DepartmentNode[];
}
export const departmentNode: z.ZodType<DepartmentNode> = z.lazy(() =>
  departmentView.extend({
    userCount: z.number().int(),
    deviceCount: z.number().int(),
    children: z.array(departmentNode),
  }),
);
export const departmentTree = z.array(departmentNode);
export type DepartmentTree = DepartmentNode[];
