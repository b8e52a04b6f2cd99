import type { RouteRecord, UserInfo } from '@cpc/contracts';
import { envelope, type FakeReply } from './fake-server';

/** The shape of the server's menu seed (apps/server/src/modules/menu/seed.ts), as getMenu returns it. */
export const MENU: RouteRecord[] = [
  {
    path: '/',
    name: 'Root',
    component: 'Layout',
    redirect: '/device',
    meta: { title: 'route.home', icon: 'home', hidden: true },
    children: [
      {
        path: 'index',
        name: 'Index',
        component: 'home/index',
        meta: { title: 'route.home', icon: 'home', noClosable: true, hidden: true },
      },
    ],
  },
  {
    path: '/person',
    name: 'Person',
    component: 'Layout',
    meta: { title: 'route.person', hidden: true },
    children: [
      { path: 'info', name: 'PersonInfo', component: 'person/info', meta: { title: 'route.personInfo', hidden: true } },
    ],
  },
  {
    path: '/device',
    name: 'Device',
    component: 'Layout',
    redirect: '/device/index',
    meta: { title: 'route.device', icon: 'printer', levelHidden: true },
    children: [
      {
        path: 'index',
        name: 'DeviceIndex',
        component: 'device/index',
        meta: { title: 'route.myDevice', icon: 'printer', activeMenu: '/device' },
      },
    ],
  },
  {
    path: '/system',
    name: 'System',
    component: 'Layout',
    meta: { title: 'route.system', icon: 'safety', guard: { permission: ['identity:review'] } },
    children: [
      {
        path: 'identity',
        name: 'IdentityReview',
        component: 'identity/review',
        meta: { title: 'route.identityReview', icon: 'idcard', guard: { permission: ['identity:review'] } },
      },
    ],
  },
  {
    path: '/error',
    name: 'Error',
    component: 'Layout',
    meta: { title: 'route.error', icon: 'warning', guard: ['Admin'] },
    children: [
      { path: '403', name: 'Error403', component: 'error/403', meta: { title: 'route.403', icon: 'stop' } },
      { path: '404', name: 'Error404', component: 'error/404', meta: { title: 'route.404', icon: 'question' } },
    ],
  },
];

export const customer = (overrides: Partial<UserInfo> = {}): UserInfo => ({
  id: 2,
  username: 'acme',
  mobile: '13800000000',
  avatar: '',
  is_super: 1,
  status: 1,
  is_authenticate: 1,
  attest_name: 'ACME Ltd',
  tenantKind: 'enterprise',
  admin: false,
  roles: [],
  permissions: ['device:view', 'device:edit'],
  dataScope: 'all',
  departmentId: null,
  ...overrides,
});

export const staff = (overrides: Partial<UserInfo> = {}): UserInfo =>
  customer({
    id: 1,
    username: 'admin',
    tenantKind: 'platform',
    admin: true,
    roles: ['Admin'],
    permissions: ['identity:review'],
    ...overrides,
  });

/** The calls of My devices for an account without devices: the first page after login renders its empty state. */
export function emptyFleet(server: { on(method: string, url: string, reply: FakeReply): unknown }, api = '/apiAdmin') {
  server.on('GET', `${api}/device/list`, envelope({ list: [], total: 0 }));
  server.on('GET', `${api}/device/group/tree`, envelope({ tree: [], total: 0, ungrouped: 0 }));
  server.on('GET', `${api}/device/model/options`, envelope([]));
}
