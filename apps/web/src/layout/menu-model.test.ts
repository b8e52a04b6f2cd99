import { describe, expect, it } from 'vitest';
import type { Access } from '@cpc/contracts';
import { normalizeRoutes } from '../lib/menu-routes';
import { MENU } from '../lib/testing/fixtures';
import {
  buildMenu,
  findNode,
  groupsOf,
  landingKey,
  opensColumn,
  selectedKey,
  topKeyOf,
  type MenuNode,
} from './menu-model';
import { initialOpenKeys } from './side-menu';

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
      normalizeRoutes([
        {
          path: '/notice',
          meta: { title: 'n', icon: 'notice' },
          children: [{ path: 'index', component: 'notice/index', meta: { title: 'n', hidden: true } }],
        },
      ]),
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
          {
            path: 'detail/:id',
            component: 'workOrder/detail',
            meta: { title: 'detail', hidden: true, activeMenu: '/workOrder/index' },
          },
        ],
      },
    ]);
    const nodes = buildMenu(withDetail, customer);
    expect(selectedKey(nodes, withDetail, '/workOrder/detail/9')).toBe('/workOrder/index');
    expect(groupsOf(nodes, '/workOrder/index')).toEqual(['/workOrder']);
  });
});

describe('column and comprehensive helpers', () => {
  const nodes = buildMenu(
    normalizeRoutes([
      {
        path: '/device',
        meta: { title: 'd', icon: 'printer', levelHidden: true },
        children: [{ path: 'index', component: 'device/index', meta: { title: 'my' } }],
      },
      {
        path: '/flowRate',
        meta: { title: 'f' },
        children: [
          { path: 'https://docs.example/traffic', meta: { title: 'docs', target: '_blank' } },
          { path: 'search', component: 'flowRate/search', meta: { title: 's' } },
          { path: 'log', component: 'flowRate/log', meta: { title: 'l' } },
        ],
      },
      {
        path: '/notice',
        meta: { title: 'n', noColumn: true },
        children: [
          { path: 'index', component: 'notice/index', meta: { title: 'n' } },
          { path: 'other', component: 'notice/other', meta: { title: 'o' } },
        ],
      },
      { path: 'https://help.example', meta: { title: 'help' } },
    ]),
    customer,
  );

  it('finds the first-level item that holds an item', () => {
    expect(topKeyOf(nodes, '/flowRate/log')).toBe('/flowRate');
    expect(topKeyOf(nodes, '/device/index')).toBe('/device/index');
    expect(topKeyOf(nodes, '/nowhere')).toBeUndefined();
  });

  it('lands a group on its first page, skipping external links', () => {
    expect(landingKey(findNode(nodes, '/flowRate')!)).toBe('/flowRate/search');
    expect(landingKey(findNode(nodes, '/device/index')!)).toBe('/device/index');
    expect(landingKey(findNode(nodes, 'https://help.example')!)).toBeUndefined();
  });

  it('opens a second column only for a group that is not marked noColumn', () => {
    expect(opensColumn(findNode(nodes, '/flowRate'))).toBe(true);
    expect(opensColumn(findNode(nodes, '/notice'))).toBe(false);
    expect(opensColumn(findNode(nodes, '/device/index'))).toBe(false);
    expect(opensColumn(undefined)).toBe(false);
  });

  it('marks external links', () => {
    expect(findNode(nodes, 'https://docs.example/traffic')?.external).toBe(true);
    expect(findNode(nodes, '/flowRate/log')?.external).toBe(false);
  });
});

describe('initialOpenKeys (SPEC §9: default-opened groups, the first menu opens)', () => {
  const node = (key: string, children?: MenuNode[]): MenuNode => ({
    key,
    meta: { title: key },
    external: false,
    ...(children && { children }),
  });
  const tree = [
    node('/home'),
    node('/flowRate', [node('/flowRate/search')]),
    node('/device', [node('/device/index')]),
    node('/systemCustom', [node('/systemCustom/wallpaper')]),
    node('/other', [node('/other/a')]),
  ];

  it('opens the first group and the configured groups that exist, nothing else', () => {
    expect(initialOpenKeys(tree, undefined).sort()).toEqual(['/device', '/flowRate', '/systemCustom']);
  });

  it('also opens the groups around the page on screen', () => {
    expect(initialOpenKeys(tree, '/other/a')).toContain('/other');
  });
});
