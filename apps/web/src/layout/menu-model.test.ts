import { describe, expect, it } from 'vitest';
import type { Access } from '@cpc/contracts';
import { normalizeRoutes } from '../lib/menu-routes';
import { MENU } from '../lib/testing/fixtures';
import { buildMenu, groupsOf, selectedKey, type MenuNode } from './menu-model';

const routes = normalizeRoutes(MENU);
const admin: Access = { admin: true, roles: ['Admin'], permissions: [] };
const reviewer: Access = { admin: false, roles: [], permissions: ['identity:review'] };
const customer: Access = { admin: false, roles: [], permissions: ['device:view'] };

const shape = (nodes: MenuNode[]): unknown[] => nodes.map((n) => (n.children ? { [n.key]: shape(n.children) } : n.key));

describe('buildMenu', () => {
  it('hides hidden records, lifts levelHidden children, keeps groups', () => {
    expect(shape(buildMenu(routes, admin))).toEqual([
      '/device/index',
      { '/system': ['/system/identity'] },
      { '/error': ['/error/403', '/error/404'] },
    ]);
  });

  it.each([
    ['a customer', customer, ['/device/index']],
    ['a reviewer', reviewer, ['/device/index', { '/system': ['/system/identity'] }]],
  ])('drops what %s may not open', (_who, access, expected) => {
    expect(shape(buildMenu(routes, access))).toEqual(expected);
  });

  it('turns a group whose children are all hidden into a plain item', () => {
    const menu = buildMenu(
      normalizeRoutes([{ path: '/notice', meta: { title: 'n', icon: 'notice' }, children: [{ path: 'index', component: 'notice/index', meta: { title: 'n', hidden: true } }] }]),
      customer,
    );
    expect(shape(menu)).toEqual(['/notice']);
  });
});

describe('selectedKey', () => {
  const menu = buildMenu(routes, admin);

  it.each([
    ['/device/index', '/device/index'],
    ['/device', '/device/index'],
    ['/system/identity', '/system/identity'],
    ['/error/404', '/error/404'],
    ['/index', undefined],
  ])('%s highlights %s', (path, key) => {
    expect(selectedKey(menu, routes, path)).toBe(key);
  });

  it('lights up the parent of a hidden detail page through activeMenu', () => {
    const withDetail = normalizeRoutes([
      {
        path: '/workOrder',
        meta: { title: 'w' },
        children: [
          { path: 'index', component: 'workOrder/index', meta: { title: 'list' } },
          { path: 'detail/:id', component: 'workOrder/detail', meta: { title: 'detail', hidden: true, activeMenu: '/workOrder/index' } },
        ],
      },
    ]);
    const nodes = buildMenu(withDetail, customer);
    expect(selectedKey(nodes, withDetail, '/workOrder/detail/9')).toBe('/workOrder/index');
    expect(groupsOf(nodes, '/workOrder/index')).toEqual(['/workOrder']);
  });
});
