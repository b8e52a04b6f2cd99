import { describe, expect, it } from 'vitest';
import { findRoute, landingPath, matchRouteChain, normalizeRoutes, resolvePath, RouteFormatError } from './menu-routes';
import { MENU } from './testing/fixtures';

describe('resolvePath', () => {
  it.each([
    ['/', 'index', '/index'],
    ['/device', 'index', '/device/index'],
    ['/device/', 'detail/:id', '/device/detail/:id'],
    ['/device', '/absolute', '/absolute'],
    ['/device', '', '/device'],
    ['/x', 'https://example.com', 'https://example.com'],
  ])('%s + %s = %s', (parent, path, expected) => {
    expect(resolvePath(parent, path)).toBe(expected);
  });
});

describe('normalizeRoutes', () => {
  it('makes every path absolute and keeps the rest of the record', () => {
    const routes = normalizeRoutes(MENU);
    expect(routes[0]).toMatchObject({
      path: '/',
      redirect: '/device',
      children: [{ path: '/index', component: 'home/index' }],
    });
    expect(routes[2].children?.[0]).toMatchObject({
      path: '/device/index',
      name: 'DeviceIndex',
      meta: { activeMenu: '/device' },
    });
  });

  it.each([null, {}, 'menu', [{ name: 'no path' }], [{ path: '/a', children: 'x' }]])('refuses %j', (bad) => {
    expect(() => normalizeRoutes(bad)).toThrow(RouteFormatError);
  });

  it('fills a missing meta so titles can be read safely', () => {
    expect(normalizeRoutes([{ path: '/a' }])).toEqual([{ path: '/a', name: '/a', meta: { title: '' } }]);
  });
});

describe('matching a location', () => {
  const routes = normalizeRoutes(MENU);

  it('gives the chain from the group down to the page', () => {
    expect(matchRouteChain(routes, '/device/index').map((r) => r.name)).toEqual(['Device', 'DeviceIndex']);
    expect(matchRouteChain(routes, '/device').map((r) => r.name)).toEqual(['Device']);
    expect(matchRouteChain(routes, '/index').map((r) => r.name)).toEqual(['Root', 'Index']);
    expect(matchRouteChain(routes, '/nowhere')).toEqual([]);
  });

  it('matches parameters', () => {
    const withParams = normalizeRoutes([
      {
        path: '/workOrder',
        meta: { title: 'w' },
        children: [{ path: 'detail/:id', component: 'workOrder/detail', meta: { title: 'd' } }],
      },
    ]);
    expect(findRoute(withParams, '/workOrder/detail/42')?.component).toBe('workOrder/detail');
  });

  it('knows where a group lands', () => {
    expect(landingPath(routes[0])).toBe('/device');
    expect(landingPath(routes[4])).toBe('/error/403');
    expect(landingPath(routes[1])).toBe('/person/info');
  });
});
