import { ADMIN_ROLE, PERMISSIONS, type RouteRecord } from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import { MenuRepository } from './repository.ts';
import { FIRST_SECTIONS } from './seed-records.ts';
import { storeVersion } from './service.ts';

/**
 * The platform's route records (SPEC §2–§3). Titles are i18n keys the console translates.
 * Put in at start by `seedMenus`: records new to the database only, so staff edits survive a restart.
 */
export const MENU: RouteRecord[] = [
  ...FIRST_SECTIONS,
  {
    // SPEC §1 system customization (issue 16): one page per part of a customization profile
    path: '/systemCustom',
    name: 'SystemCustom',
    component: 'Layout',
    redirect: '/systemCustom/bootAnimation',
    meta: { title: 'route.systemCustom', icon: 'skin', guard: { permission: [PERMISSIONS.systemCustomView] } },
    children: (
      [
        ['bootAnimation', 'BootAnimation', 'play'],
        ['customDesktop', 'CustomDesktop', 'desktop'],
        ['customWallpaper', 'CustomWallpaper', 'picture'],
        ['defaultStartApp', 'DefaultStartApp', 'rocket'],
        ['topScreenMode', 'TopScreenMode', 'pushpin'],
        ['appLock', 'AppLock', 'lock'],
      ] as const
    ).map(([path, name, icon]) => ({
      path,
      name,
      component: `systemCustom/${path}`,
      meta: { title: `route.${path}`, icon, guard: { permission: [PERMISSIONS.systemCustomView] } },
    })),
  },
  {
    // SPEC §1 push query and push tasks (issue 16)
    path: '/push',
    name: 'Push',
    component: 'Layout',
    redirect: '/push/pushTask',
    meta: { title: 'route.push', icon: 'send', guard: { permission: [PERMISSIONS.pushView] } },
    children: [
      {
        path: 'pushTask',
        name: 'PushTask',
        component: 'push/pushTask',
        meta: { title: 'route.pushTask', icon: 'send', guard: { permission: [PERMISSIONS.pushView] } },
      },
      {
        path: 'pushQuery',
        name: 'PushQuery',
        component: 'push/pushQuery',
        meta: { title: 'route.pushQuery', icon: 'file-search', guard: { permission: [PERMISSIONS.pushView] } },
      },
    ],
  },
  {
    // what needs doing now, per role (issue 14): any signed-in user; its items follow the user's permissions
    path: '/workbench',
    name: 'Workbench',
    component: 'Layout',
    redirect: '/workbench/index',
    meta: { title: 'route.workbench', icon: 'dashboard', levelHidden: true },
    children: [
      {
        path: 'index',
        name: 'WorkbenchIndex',
        component: 'workbench/index',
        meta: { title: 'route.workbench', icon: 'dashboard', activeMenu: '/workbench' },
      },
    ],
  },
  {
    // SPEC §2: child workOrderIndex, with detail and edit screens; staff see the queue of every tenant on the same page
    path: '/workOrder',
    name: 'WorkOrder',
    component: 'Layout',
    redirect: '/workOrder/workOrderIndex',
    meta: {
      title: 'route.workOrder',
      icon: 'work-order',
      levelHidden: true,
      guard: { permission: [PERMISSIONS.workOrderView, PERMISSIONS.workOrderHandle] },
    },
    children: [
      {
        path: 'workOrderIndex',
        name: 'WorkOrderIndex',
        component: 'workOrder/index',
        meta: {
          title: 'route.workOrderIndex',
          icon: 'work-order',
          activeMenu: '/workOrder',
          guard: { permission: [PERMISSIONS.workOrderView, PERMISSIONS.workOrderHandle] },
        },
      },
      // one tab per work order: /workOrder/detail?id=…
      {
        path: 'detail',
        name: 'WorkOrderDetail',
        component: 'workOrder/detail',
        meta: {
          title: 'route.workOrderDetail',
          hidden: true,
          activeMenu: '/workOrder',
          dynamicNewTab: true,
          guard: { permission: [PERMISSIONS.workOrderView, PERMISSIONS.workOrderHandle] },
        },
      },
      // a new one (/workOrder/edit) or an untaken one of one's own (/workOrder/edit?id=…)
      {
        path: 'edit',
        name: 'WorkOrderEdit',
        component: 'workOrder/edit',
        meta: {
          title: 'route.workOrderEdit',
          hidden: true,
          activeMenu: '/workOrder',
          guard: { permission: [PERMISSIONS.workOrderEdit] },
        },
      },
    ],
  },
  {
    // SPEC §2: child noticeIndex; staff with notice:edit write and publish on the same page
    path: '/notice',
    name: 'Notice',
    component: 'Layout',
    redirect: '/notice/noticeIndex',
    meta: { title: 'route.notice', icon: 'notice', levelHidden: true },
    children: [
      {
        path: 'noticeIndex',
        name: 'NoticeIndex',
        component: 'notice/index',
        meta: { title: 'route.noticeIndex', icon: 'notice', activeMenu: '/notice' },
      },
      {
        path: 'detail',
        name: 'NoticeDetail',
        component: 'notice/detail',
        meta: { title: 'route.noticeDetail', hidden: true, activeMenu: '/notice', dynamicNewTab: true },
      },
    ],
  },
  {
    // the message centre: every user's inbox (the notice popover's second tab, whole)
    path: '/message',
    name: 'Message',
    component: 'Layout',
    redirect: '/message/messageIndex',
    meta: { title: 'route.message', icon: 'bell', levelHidden: true, hidden: true },
    children: [
      {
        path: 'messageIndex',
        name: 'MessageIndex',
        component: 'message/index',
        meta: { title: 'route.messageIndex', icon: 'bell', activeMenu: '/message', hidden: true },
      },
    ],
  },
  {
    // app keys, request log, usage, print jobs (a tab of the same page), webhooks (SPEC §2: child integrationIndex)
    path: '/integration',
    name: 'Integration',
    component: 'Layout',
    redirect: '/integration/index',
    meta: {
      title: 'route.integration',
      icon: 'integration',
      levelHidden: true,
      guard: { permission: [PERMISSIONS.integrationManage, PERMISSIONS.printView] },
    },
    children: [
      {
        path: 'index',
        name: 'IntegrationIndex',
        component: 'integration/index',
        meta: {
          title: 'route.integrationIndex',
          icon: 'integration',
          activeMenu: '/integration',
          guard: { permission: [PERMISSIONS.integrationManage, PERMISSIONS.printView] },
        },
      },
    ],
  },
  {
    path: '/system',
    name: 'System',
    component: 'Layout',
    meta: {
      title: 'route.system',
      icon: 'safety',
      guard: {
        permission: [
          PERMISSIONS.identityReview,
          PERMISSIONS.deviceModelManage,
          PERMISSIONS.deviceRegister,
          PERMISSIONS.userEdit,
          PERMISSIONS.roleEdit,
          PERMISSIONS.departmentEdit,
          PERMISSIONS.menuEdit,
          PERMISSIONS.logView,
        ],
      },
    },
    children: [
      {
        path: 'identity',
        name: 'IdentityReview',
        component: 'identity/review',
        meta: { title: 'route.identityReview', icon: 'idcard', guard: { permission: [PERMISSIONS.identityReview] } },
      },
      {
        path: 'deviceModel',
        name: 'DeviceModel',
        component: 'device-model/index',
        meta: { title: 'route.deviceModel', icon: 'appstore', guard: { permission: [PERMISSIONS.deviceModelManage] } },
      },
      {
        path: 'deviceRegistry',
        name: 'DeviceRegistry',
        component: 'device-registry/index',
        meta: { title: 'route.deviceRegistry', icon: 'tool', guard: { permission: [PERMISSIONS.deviceRegister] } },
      },
      {
        path: 'user',
        name: 'UserManagement',
        component: 'user/userManagement',
        meta: { title: 'route.user', icon: 'user', guard: { permission: [PERMISSIONS.userEdit] } },
      },
      {
        path: 'role',
        name: 'RoleManagement',
        component: 'user/roleManagement',
        meta: { title: 'route.role', icon: 'lock', guard: { permission: [PERMISSIONS.roleEdit] } },
      },
      {
        path: 'department',
        name: 'DepartmentManagement',
        component: 'user/departmentManagement',
        meta: { title: 'route.department', icon: 'team', guard: { permission: [PERMISSIONS.departmentEdit] } },
      },
      {
        path: 'menu',
        name: 'MenuManagement',
        component: 'user/menuManagement',
        meta: { title: 'route.menu', icon: 'app', guard: { permission: [PERMISSIONS.menuEdit] } },
      },
      {
        path: 'log',
        name: 'SystemLog',
        component: 'user/systemLog',
        meta: { title: 'route.systemLog', icon: 'audit', guard: { permission: [PERMISSIONS.logView] } },
      },
    ],
  },
  {
    path: '/error',
    name: 'Error',
    component: 'Layout',
    meta: { title: 'route.error', icon: 'warning', guard: [ADMIN_ROLE] },
    children: [
      { path: '403', name: 'Error403', component: 'error/403', meta: { title: 'route.403', icon: 'stop' } },
      { path: '404', name: 'Error404', component: 'error/404', meta: { title: 'route.404', icon: 'question' } },
    ],
  },
];

/**
 * The seed version of this release's menu. Raise it when a release adds records to `MENU`: the names it brings
 * are then remembered with it (which release put them in).
 */
export const MENU_SEED_VERSION = 5;

/**
 * Puts in the records of `records` the menu has never had, and nothing else. The rule:
 * - a name is inserted once: when it is not yet in `menu_seeds` (and no record has that name), it is inserted
 *   under its parent (found by the parent's name) and remembered in `menu_seeds` with `version`;
 * - a name already in `menu_seeds` is left alone, whatever staff did with it since: edited, moved, hidden or
 *   deleted, a restart does not undo it;
 * - a new record whose parent staff deleted is not brought back (nor is its subtree), but remembered as seeded.
 * Anything inserted is stored as a new menu version ("seed"), so it can be rolled back like a staff change; a
 * menu without any version yet (one older than versions) is stored as the first one ("initial").
 */
export async function seedMenus(
  db: Db,
  records: RouteRecord[] = MENU,
  version: number = MENU_SEED_VERSION,
): Promise<number> {
  return new MenuRepository(db).transaction(async (tx) => {
    await tx.lock();
    const seeded = new Set(await tx.seededNames());
    const existing = await tx.idsByName();
    let inserted = 0;
    const put = async (r: RouteRecord, parentId: number | null, parentGone: boolean, sort: number) => {
      let id = existing.get(r.name) ?? null;
      if (!seeded.has(r.name)) {
        if (id === null && !parentGone) {
          const fields = {
            path: r.path,
            name: r.name,
            component: r.component ?? null,
            redirect: r.redirect ?? null,
            meta: r.meta,
          };
          id = await tx.insertRecord(fields, parentId, sort);
          existing.set(r.name, id);
          inserted++;
        }
        await tx.insertSeeded(r.name, version);
        seeded.add(r.name);
      }
      for (const [i, c] of (r.children ?? []).entries()) await put(c, id, id === null, i);
    };
    for (const [i, r] of records.entries()) await put(r, null, false, i);
    if (inserted) await storeVersion(tx, null, `seed v${version}: ${inserted} new`);
    // a database that had its menu before versions existed: its menu as it is becomes the first version
    else if (!(await tx.hasVersion())) await storeVersion(tx, null, 'initial');
    return inserted;
  });
}
