import { beforeEach, describe, expect, it } from 'vitest';
import { matchPath } from 'react-router';
import type { RouteRecord } from '@cpc/contracts';
import { KEEP_ALIVE_MAX } from '../../config/settings';
import { findRoute, normalizeRoutes } from '../../lib/menu-routes';
import { useSession } from '../../lib/session';
import { type CloseAction, useTabs, visitOf } from './tabs-store';

/** The server's menu plus routes with the tab-related meta flags the seed does not use yet. */
const routes: RouteRecord[] = normalizeRoutes([
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
        meta: { title: 'route.home', icon: 'home', noClosable: true },
      },
    ],
  },
  {
    path: '/device',
    name: 'Device',
    component: 'Layout',
    meta: { title: 'route.device', icon: 'printer' },
    children: [
      { path: 'index', name: 'DeviceIndex', component: 'device/index', meta: { title: 'route.myDevice' } },
      {
        path: 'detail',
        name: 'DeviceDetail',
        component: 'device/detail',
        meta: { title: 'route.deviceDetail', dynamicNewTab: true },
      },
      {
        path: 'map',
        name: 'DeviceMap',
        component: 'device/map',
        meta: { title: 'route.deviceMap', noKeepAlive: true },
      },
      { path: 'hidden', name: 'Hidden', component: 'device/hidden', meta: { title: 'route.device', tabHidden: true } },
      { path: 'page/:n', name: 'Numbered', component: 'device/numbered', meta: { title: 'route.device' } },
    ],
  },
  { path: '/a', name: 'A', component: 'a', meta: { title: 'a' } },
  { path: '/b', name: 'B', component: 'b', meta: { title: 'b' } },
  { path: '/c', name: 'C', component: 'c', meta: { title: 'c' } },
  { path: '/d', name: 'D', component: 'd', meta: { title: 'd' } },
  { path: '/e', name: 'E', component: 'e', meta: { title: 'e' } },
  { path: '/fixed', name: 'Fixed', component: 'fixed', meta: { title: 'fixed', noClosable: true } },
]);

/** Visits a path (with its query) the way the authenticated area does after a navigation. */
function go(fullPath: string): void {
  const [pathname, query] = fullPath.split('?');
  const record = findRoute(routes, pathname)!;
  const params = matchPath({ path: record.path, end: true }, pathname)!.params;
  useTabs.getState().visit(visitOf(routes, record, pathname, query ? `?${query}` : '', params));
}

const paths = () => useTabs.getState().tabs.map((t) => t.fullPath);
const kept = () => useTabs.getState().kept;

beforeEach(() => {
  useTabs.getState().reset();
  useTabs.getState().syncRoutes(routes);
});

describe('opening tabs', () => {
  it('starts with the fixed tabs, the home dashboard first', () => {
    expect(paths()).toEqual(['/index', '/fixed']);
    expect(useTabs.getState().tabs[0]).toMatchObject({ name: 'Index', meta: { noClosable: true }, parentIcon: 'home' });
  });

  it.each<{ name: string; visits: string[]; tabs: string[] }>([
    {
      name: 'adds a tab per visited page, in order',
      visits: ['/device/index', '/a', '/b'],
      tabs: ['/index', '/fixed', '/device/index', '/a', '/b'],
    },
    { name: 'does not add a page twice', visits: ['/a', '/b', '/a'], tabs: ['/index', '/fixed', '/a', '/b'] },
    { name: 'a fixed page keeps its place', visits: ['/a', '/index'], tabs: ['/index', '/fixed', '/a'] },
    {
      name: 'one tab per path: a new query updates it',
      visits: ['/device/index?page=1', '/device/index?page=2'],
      tabs: ['/index', '/fixed', '/device/index?page=2'],
    },
    {
      name: 'dynamicNewTab: one tab per distinct query',
      visits: ['/device/detail?sn=1', '/device/detail?sn=2', '/device/detail?sn=1'],
      tabs: ['/index', '/fixed', '/device/detail?sn=1', '/device/detail?sn=2'],
    },
    { name: 'tabHidden pages get no tab', visits: ['/a', '/device/hidden'], tabs: ['/index', '/fixed', '/a'] },
    {
      name: 'pages with params get one tab per path',
      visits: ['/device/page/1', '/device/page/2'],
      tabs: ['/index', '/fixed', '/device/page/1', '/device/page/2'],
    },
  ])('$name', ({ visits, tabs }) => {
    visits.forEach(go);
    expect(paths()).toEqual(tabs);
  });

  it('keeps what SPEC §3 says a visited tab has', () => {
    go('/device/detail?sn=7&x=y');
    expect(useTabs.getState().tabs.at(-1)).toMatchObject({
      key: '/device/detail?sn=7&x=y',
      path: '/device/detail',
      query: { sn: '7', x: 'y' },
      name: 'DeviceDetail',
      parentIcon: 'printer',
      meta: { title: 'route.deviceDetail', dynamicNewTab: true },
    });
    go('/device/page/3');
    expect(useTabs.getState().tabs.at(-1)).toMatchObject({ params: { n: '3' } });
  });

  it('marks the visited page as the active one, with or without a tab', () => {
    go('/a');
    expect(useTabs.getState().activeKey).toBe('/a');
    go('/device/hidden');
    expect(useTabs.getState().activeKey).toBe('/device/hidden');
  });
});

describe('closing tabs', () => {
  const open = ['/a', '/b', '/c', '/d'];

  it.each<{ action: CloseAction; on: string; active: string; left: string[]; goTo: string | null }>([
    { action: 'close', on: '/b', active: '/d', left: ['/index', '/fixed', '/a', '/c', '/d'], goTo: null },
    { action: 'close', on: '/d', active: '/d', left: ['/index', '/fixed', '/a', '/b', '/c'], goTo: '/c' },
    { action: 'close', on: '/b', active: '/b', left: ['/index', '/fixed', '/a', '/c', '/d'], goTo: '/d' },
    { action: 'close', on: '/index', active: '/d', left: ['/index', '/fixed', '/a', '/b', '/c', '/d'], goTo: null },
    { action: 'close', on: '/fixed', active: '/d', left: ['/index', '/fixed', '/a', '/b', '/c', '/d'], goTo: null },
    { action: 'closeOthers', on: '/b', active: '/b', left: ['/index', '/fixed', '/b'], goTo: null },
    { action: 'closeOthers', on: '/b', active: '/d', left: ['/index', '/fixed', '/b'], goTo: '/b' },
    { action: 'closeOthers', on: '/index', active: '/d', left: ['/index', '/fixed'], goTo: '/fixed' },
    { action: 'closeLeft', on: '/c', active: '/c', left: ['/index', '/fixed', '/c', '/d'], goTo: null },
    { action: 'closeLeft', on: '/c', active: '/a', left: ['/index', '/fixed', '/c', '/d'], goTo: '/d' },
    { action: 'closeLeft', on: '/index', active: '/a', left: ['/index', '/fixed', '/a', '/b', '/c', '/d'], goTo: null },
    { action: 'closeRight', on: '/b', active: '/b', left: ['/index', '/fixed', '/a', '/b'], goTo: null },
    { action: 'closeRight', on: '/b', active: '/d', left: ['/index', '/fixed', '/a', '/b'], goTo: '/b' },
    { action: 'closeRight', on: '/d', active: '/d', left: ['/index', '/fixed', '/a', '/b', '/c', '/d'], goTo: null },
    { action: 'closeRight', on: '/index', active: '/a', left: ['/index', '/fixed'], goTo: '/fixed' },
    { action: 'closeAll', on: '/b', active: '/c', left: ['/index', '/fixed'], goTo: '/fixed' },
    { action: 'closeAll', on: '/b', active: '/index', left: ['/index', '/fixed'], goTo: null },
  ])('$action on $on with $active active leaves $left and goes to $goTo', ({ action, on, active, left, goTo }) => {
    open.forEach(go);
    go(active);
    expect(useTabs.getState().close(action, on)).toBe(goTo);
    expect(paths()).toEqual(left);
  });

  it('acts on the active tab when no tab is named (the bar dropdown)', () => {
    open.forEach(go);
    go('/b');
    expect(useTabs.getState().close('closeRight')).toBeNull();
    expect(paths()).toEqual(['/index', '/fixed', '/a', '/b']);
  });

  it('goes to the last remaining tab, or home when none is left', () => {
    useTabs.getState().reset();
    go('/a');
    expect(useTabs.getState().close('close', '/a')).toBe('/');
    expect(paths()).toEqual([]);
  });

  it('goes to the query the last tab was left on', () => {
    go('/device/detail?sn=1');
    go('/device/detail?sn=2');
    expect(useTabs.getState().close('close')).toBe('/device/detail?sn=1');
  });

  it('drops the closed pages from the kept ones and forgets their refreshes', () => {
    open.forEach(go);
    useTabs.getState().refresh('/b');
    useTabs.getState().close('closeOthers', '/d');
    expect(kept()).toEqual(['/d']);
    expect(useTabs.getState().versions).toEqual({});
  });
});

describe('kept pages', () => {
  it(`keeps at most ${KEEP_ALIVE_MAX}, dropping the least recently used`, () => {
    const many = Array.from({ length: KEEP_ALIVE_MAX + 2 }, (_, i) => `/device/page/${i}`);
    many.forEach(go);
    expect(kept()).toHaveLength(KEEP_ALIVE_MAX);
    expect(kept()).toEqual(many.slice(2));
    // a visit makes a page the most recent: the next eviction takes another
    go('/device/page/2');
    go('/a');
    expect(kept()).toEqual([...many.slice(4), '/device/page/2', '/a']);
    expect(kept()).toHaveLength(KEEP_ALIVE_MAX);
    // evicted pages keep their tabs
    expect(paths()).toHaveLength(2 + many.length + 1);
  });

  it.each<{ name: string; visits: string[]; kept: string[] }>([
    { name: 'every visited page by default', visits: ['/a', '/b'], kept: ['/a', '/b'] },
    {
      name: 'none for noKeepAlive (mounted anew on every visit)',
      visits: ['/a', '/device/map', '/b'],
      kept: ['/a', '/b'],
    },
    { name: 'none for tabHidden', visits: ['/a', '/device/hidden'], kept: ['/a'] },
    {
      name: 'one per dynamicNewTab query',
      visits: ['/device/detail?sn=1', '/device/detail?sn=2'],
      kept: ['/device/detail?sn=1', '/device/detail?sn=2'],
    },
    { name: 'the most recent last', visits: ['/a', '/b', '/a'], kept: ['/b', '/a'] },
  ])('$name', ({ visits, kept: expected }) => {
    visits.forEach(go);
    expect(kept()).toEqual(expected);
  });

  it('a noKeepAlive page still gets its tab', () => {
    go('/device/map');
    expect(paths()).toContain('/device/map');
  });

  it('a refresh gives the page a new identity', () => {
    go('/a');
    useTabs.getState().refresh('/a');
    useTabs.getState().refresh('/a');
    expect(useTabs.getState().versions['/a']).toBe(2);
  });
});

describe('routes and sessions', () => {
  it('drops tabs the new routes no longer have', () => {
    ['/a', '/b'].forEach(go);
    useTabs.getState().syncRoutes(routes.filter((r) => r.path !== '/a'));
    expect(paths()).toEqual(['/index', '/fixed', '/b']);
    expect(kept()).toEqual(['/b']);
  });

  it('forgets every tab on logout', () => {
    ['/a', '/b'].forEach(go);
    useSession.getState().reset();
    expect(useTabs.getState()).toMatchObject({ tabs: [], kept: [], activeKey: null, versions: {} });
  });
});
