import { z } from 'zod';
import { id, pageFields, queryId, textLine } from './device.ts';
import { DATA_SCOPES } from './permissions.ts';
import { NO_CONTROL_MSG, hasNoControl, hasNoControlButLineBreaks } from './validators.ts';

/**
 * Roles of a tenant (issue 12): the platform's staff roles, and each customer's roles for its sub-accounts.
 * A role holds permission codes of the catalogue (`PERMISSION_CATALOGUE`) and a data scope.
 */
export const dataScope = z.enum(DATA_SCOPES);

export const roleView = z.object({
  id: z.number().int(),
  code: z.string(),
  name: z.string(),
  description: z.string(),
  dataScope,
  /** A role the system created (Admin, operator, viewer); only the platform's Admin is locked. */
  builtin: z.boolean(),
  /** The platform's Admin role: holds everything, its permissions are not edited and it is never deleted. */
  locked: z.boolean(),
  permissions: z.array(z.string()),
  memberCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type RoleView = z.infer<typeof roleView>;

const keyword = textLine(50).optional();
export const roleListQuery = z.object({ ...pageFields, keyword });
export type RoleListQuery = z.infer<typeof roleListQuery>;

export const roleIdQuery = z.object({ id: queryId });
export type RoleIdQuery = z.infer<typeof roleIdQuery>;

const roleCode = z
  .string()
  .trim()
  .min(2)
  .max(32)
  .regex(/^[A-Za-z][A-Za-z0-9_-]*$/);
const roleName = textLine(32).min(1);

export const roleCreateBody = z
  .object({
    name: roleName,
    code: roleCode,
    description: z.string().trim().max(200).refine(hasNoControlButLineBreaks, NO_CONTROL_MSG).default(''),
    dataScope: dataScope.default('all'),
    permissions: z.array(z.string().max(64).refine(hasNoControl, NO_CONTROL_MSG)).max(200).default([]),
  })
  .strict();
export type RoleCreateBody = z.infer<typeof roleCreateBody>;

export const roleUpdateBody = roleCreateBody.extend({ id }).strict();
export type RoleUpdateBody = z.infer<typeof roleUpdateBody>;

/** A new role with another name and code, the same permissions, scope and description. */
export const roleCopyBody = z.object({ id, name: roleName, code: roleCode }).strict();
export type RoleCopyBody = z.infer<typeof roleCopyBody>;

/** A role with members is deleted only with `reassignTo`: its members move to that role of the same tenant. */
export const roleDeleteBody = z.object({ id, reassignTo: id.optional() }).strict();
export type RoleDeleteBody = z.infer<typeof roleDeleteBody>;

export const roleMemberQuery = z.object({ ...pageFields, id: queryId, keyword });
export type RoleMemberQuery = z.infer<typeof roleMemberQuery>;

export const roleMember = z.object({
  id: z.number().int(),
  username: z.string(),
  nickname: z.string(),
  state: z.string(),
  /** The customer's main account or the platform's first admin (is_super = 1). */
  main: z.boolean(),
});
export type RoleMember = z.infer<typeof roleMember>;

export const roleMembersBody = z.object({ id, userIds: z.array(id).min(1).max(100) }).strict();
export type RoleMembersBody = z.infer<typeof roleMembersBody>;

/** Users of the tenant a role's members may be chosen from (the members panel's picker). */
export const roleCandidateQuery = z.object({ id: queryId, keyword });
export type RoleCandidateQuery = z.infer<typeof roleCandidateQuery>;

const localName = z.object({ zh: z.string(), en: z.string() });
/** The catalogue as the caller may grant it: customers see the tenant audience only. */
export const permissionSectionView = z.object({
  key: z.string(),
  name: localName,
  permissions: z.array(
    z.object({ code: z.string(), name: localName, audience: z.enum(['tenant', 'platform']), held: z.boolean() }),
  ),
});
export type PermissionSectionView = z.infer<typeof permissionSectionView>;

/** `event: permissions` — the roles of these users changed: their consoles read the user info and menu again. */
export const livePermissionsEvent = z.object({ userIds: z.array(z.number().int()) });
export type LivePermissionsEvent = z.infer<typeof livePermissionsEvent>;
