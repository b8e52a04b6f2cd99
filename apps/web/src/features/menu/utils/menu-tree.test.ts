import { describe, expect, it } from 'vitest';
import type { MenuNode } from '@cpc/contracts/menu';
import { dropToMove, formFieldOf, toFormValues, toRecordBody, toRoutes } from './menu-tree';

const node = (id: number, name: string, path: string, children?: MenuNode[]): MenuNode => ({
  id,
  name,
  path,
  fullPath: path,
  component: 'Layout',
  meta: { title: `route.${name}` },
  ...(children ? { children } : {}),
});

// A(1) [A1(11), A2(12), A3(13)], B(2), C(3)
const tree = [
  node(1, 'A', '/a', [node(11, 'A1', 'one'), node(12, 'A2', 'two'), node(13, 'A3', 'three')]),
  node(2, 'B', '/b'),
  node(3, 'C', '/c'),
];

describe('dropToMove', () => {
  it('drops onto a node as its first child', () => {
    expect(dropToMove(tree, 3, 1, false, 1)).toEqual({ id: 3, parentId: 1, index: 0 });
  });
  it('drops into the gap before or after a node, counting siblings without the dragged one', () => {
    expect(dropToMove(tree, 3, 1, true, -1)).toEqual({ id: 3, parentId: null, index: 0 });
    expect(dropToMove(tree, 1, 3, true, 1)).toEqual({ id: 1, parentId: null, index: 2 });
    expect(dropToMove(tree, 11, 13, true, 1)).toEqual({ id: 11, parentId: 1, index: 2 });
    expect(dropToMove(tree, 13, 11, true, -1)).toEqual({ id: 13, parentId: 1, index: 0 });
    expect(dropToMove(tree, 2, 12, true, 1)).toEqual({ id: 2, parentId: 1, index: 2 });
  });
  it('ignores a drop on itself', () => {
    expect(dropToMove(tree, 2, 2, true, 1)).toBeNull();
  });
});

describe('the record form', () => {
  it('keeps every field through the form and back', () => {
    const n: MenuNode = {
      id: 5,
      fullPath: '/x/y',
      path: 'y',
      name: 'Y',
      component: 'device/map',
      redirect: '/x/z',
      meta: {
        title: 'route.deviceMap',
        i18n: { zh: '地图', en: 'Map' },
        icon: 'map',
        hidden: true,
        noKeepAlive: true,
        activeMenu: '/x',
        target: '_blank',
        guard: { role: ['Admin'], permission: ['device:view'], mode: 'except' },
        badge: { source: 'unreadMessages' },
        dot: true,
      },
    };
    expect(toRecordBody(toFormValues(n))).toEqual({
      path: n.path,
      name: n.name,
      component: n.component,
      redirect: n.redirect,
      meta: n.meta,
    });
  });
  it('leaves empty inputs out and keeps a numeric badge a number', () => {
    const v = { ...toFormValues(node(1, 'A', '/a')), zh: ' ', badgeKind: 'literal' as const, badgeText: '12' };
    expect(toRecordBody(v).meta).toEqual({ title: 'route.A', badge: 12 });
    expect(toRecordBody({ ...v, guardKind: 'list', guardList: ['Admin'] }).meta.guard).toEqual(['Admin']);
  });
  it('puts a server error on the input it names', () => {
    expect(formFieldOf('component')).toBe('component');
    expect(formFieldOf('meta.activeMenu')).toBe('activeMenu');
    expect(formFieldOf('meta.guard.mode')).toBe('guardKind');
    expect(formFieldOf('meta.badge')).toBe('badgeKind');
    expect(formFieldOf('meta.colour')).toBe('title');
    expect(formFieldOf('parentId')).toBeUndefined();
  });
});

describe('toRoutes', () => {
  it("resolves paths and redirects against the parent's path, as the console does", () => {
    const routes = toRoutes([
      {
        ...tree[0],
        redirect: '/a/two',
        children: [{ ...tree[0].children![0], redirect: 'two' }, ...tree[0].children!.slice(1)],
      },
    ]);
    expect(routes[0].redirect).toBe('/a/two');
    expect(routes[0].children?.[0].redirect).toBe('/a/two');
    expect(routes[0].children?.map((c) => c.path)).toEqual(['/a/one', '/a/two', '/a/three']);
  });
});
