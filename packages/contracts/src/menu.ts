import { z } from 'zod';
import type { Guard, RouteMeta, RouteRecord } from './route.ts';

/**
 * Menu management (staff): the route records of SPEC §3 as a tree of rows with ids, their validation, and the
 * versions every change stores.
 */

/** A route record as the menu API answers it (`GET /getRouters`): recursive, so named in the API document. */
export const routeRecord: z.ZodType<RouteRecord> = z.lazy(() =>
  z.object({
    path: z.string(),
    name: z.string(),
    component: z.string().optional(),
    redirect: z.string().optional(),
    meta: z.record(z.string(), z.unknown()) as unknown as z.ZodType<RouteMeta>,
    children: z.array(routeRecord).optional(),
  }),
);

/** Component name of a record that only groups its children. */
export const LAYOUT_COMPONENT = 'Layout';

/**
 * Every page component the console has: the keys of `loaders` in apps/web/src/app/route-components.ts, and
 * `Layout` for groups. A record naming anything else is refused (a web test keeps both lists the same).
 */
export const ROUTE_COMPONENTS = [
  LAYOUT_COMPONENT,
  'home/index',
  'device/index',
  'device/detail',
  'device/map',
  'person/info',
  'person/personal-center',
  'person/sub-account',
  'identity/review',
  'device-model/index',
  'device-registry/index',
  'integration/index',
  'error/403',
  'error/404',
  'user/userManagement',
  'user/roleManagement',
  'user/departmentManagement',
  'user/menuManagement',
  'user/systemLog',
  'flowRate/flowRateSearch',
  'flowRate/flowRateLog',
  'flowRate/mallGoods',
  'workbench/index',
  'workOrder/index',
  'workOrder/detail',
  'workOrder/edit',
  'notice/index',
  'notice/detail',
  'message/index',
  'application/myApplication',
  'application/applicationInstall',
  'fileAcquisition/index',
  'upgrade/deviceUpgrade',
  'upgrade/upgradeTask',
  'upgrade/taskDetail',
  'aiLibrary/terminal',
  'aiLibrary/cloud',
  'fence/index',
  'fence/fenceSetting',
  'systemCustom/bootAnimation',
  'systemCustom/customDesktop',
  'systemCustom/customWallpaper',
  'systemCustom/defaultStartApp',
  'systemCustom/topScreenMode',
  'systemCustom/appLock',
  'push/pushTask',
  'push/pushQuery',
] as const;
export type RouteComponent = (typeof ROUTE_COMPONENTS)[number];

/** The live numbers a badge or a dot may show (`unreadMessages`: the user's unread messages, as the bell counts). */
export const LIVE_SOURCES = ['unreadMessages'] as const;
export const liveSource = z.strictObject({ source: z.enum(LIVE_SOURCES) });

export const GUARD_MODES = ['allOf', 'oneOf', 'except'] as const;
const guardName = z.string().trim().min(1).max(100);
/** SPEC §6: a list of roles/permissions (any one passes), or role and permission lists with a mode. */
export const guardSchema: z.ZodType<Guard> = z.union([
  z.array(guardName).max(100),
  z.strictObject({
    role: z.array(guardName).max(100).optional(),
    permission: z.array(guardName).max(100).optional(),
    mode: z.enum(GUARD_MODES).optional(),
  }),
]);

/** Every field of SPEC §3's `meta`; nothing else is accepted. */
export const menuMetaSchema = z.strictObject({
  title: z.string().trim().max(100),
  i18n: z.strictObject({ zh: z.string().trim().max(100), en: z.string().trim().max(100) }).optional(),
  icon: z.string().trim().max(60).optional(),
  hidden: z.boolean().optional(),
  levelHidden: z.boolean().optional(),
  noClosable: z.boolean().optional(),
  tabHidden: z.boolean().optional(),
  dynamicNewTab: z.boolean().optional(),
  activeMenu: z.string().trim().max(300).optional(),
  guard: guardSchema.optional(),
  badge: z.union([z.string().max(20), z.number().int().min(0), liveSource]).optional(),
  dot: z.union([z.boolean(), liveSource]).optional(),
  target: z.enum(['_blank', '_self']).optional(),
  noColumn: z.boolean().optional(),
  breadcrumbHidden: z.boolean().optional(),
  noKeepAlive: z.boolean().optional(),
  isCustomSvg: z.boolean().optional(),
}) satisfies z.ZodType<RouteMeta>;

/** What staff edit of one record: its own path (relative to the parent's, or absolute), name, page, redirect, meta. */
export const menuRecordBody = z.strictObject({
  path: z.string().trim().min(1).max(300),
  name: z
    .string()
    .trim()
    .min(1)
    .max(60)
    .regex(/^[A-Za-z][A-Za-z0-9_-]*$/),
  component: z.string().trim().max(100).optional(),
  redirect: z.string().trim().max(300).optional(),
  meta: menuMetaSchema,
});
export type MenuRecordBody = z.infer<typeof menuRecordBody>;

export const menuCreateBody = menuRecordBody.extend({
  parentId: z.number().int().positive().nullable(),
});
export type MenuCreateBody = z.infer<typeof menuCreateBody>;

export const menuUpdateBody = menuRecordBody.extend({ id: z.number().int().positive() });
export type MenuUpdateBody = z.infer<typeof menuUpdateBody>;

/** Drag and drop: the record's new parent (null: the top level) and its place among its new siblings (0-based). */
export const menuMoveBody = z.strictObject({
  id: z.number().int().positive(),
  parentId: z.number().int().positive().nullable(),
  index: z.number().int().min(0),
});
export type MenuMoveBody = z.infer<typeof menuMoveBody>;

export const menuDeleteBody = z.strictObject({ id: z.number().int().positive() });

/** A record of the tree as staff see it: with its id, the full path it resolves to, hidden ones too. */
export interface MenuNode extends RouteRecord {
  id: number;
  fullPath: string;
  children?: MenuNode[];
}
export const menuNode: z.ZodType<MenuNode> = z.lazy(() =>
  z.object({
    id: z.number().int(),
    fullPath: z.string(),
    path: z.string(),
    name: z.string(),
    component: z.string().optional(),
    redirect: z.string().optional(),
    meta: z.record(z.string(), z.unknown()) as unknown as z.ZodType<RouteMeta>,
    children: z.array(menuNode).optional(),
  }),
);

export const menuVersionView = z.object({
  id: z.number().int(),
  createdAt: z.string(),
  userId: z.number().int().nullable(),
  username: z.string().nullable(),
  note: z.string(),
});
export type MenuVersionView = z.infer<typeof menuVersionView>;

export const menuVersionDetail = menuVersionView.extend({ tree: z.array(menuNode) });
export type MenuVersionDetail = z.infer<typeof menuVersionDetail>;

export const menuVersionIdQuery = z.object({ id: z.coerce.number().int().positive() });
export const menuRollbackBody = z.strictObject({ id: z.number().int().positive() });

/** The full path of a record under a parent's: absolute paths and external links stay as they are. */
export function joinMenuPath(parent: string, path: string): string {
  if (/^(https?:|mailto:|tel:)/i.test(path) || path.startsWith('/')) return path;
  const joined = `${parent}/${path}`.replace(/\/{2,}/g, '/');
  return joined.length > 1 ? joined.replace(/\/$/, '') : joined;
}
