import { describe, expect, it } from 'vitest';
import { isValidElement } from 'react';
import type { RouteObject } from 'react-router';
import { normalizeRoutes } from '../lib/menu-routes';
import { MENU } from '../lib/testing/fixtures';
import { toRouteObjects } from './authenticated-area';

/** What each path renders: a redirect target, or the page component's name. */
function table(objects: RouteObject[]): Record<string, string> {
  return Object.fromEntries(
    objects.map((o) => {
      const el = o.element;
      if (!isValidElement<{ to?: string }>(el)) return [o.path, '?'];
      return [o.path, el.props.to ? `→ ${el.props.to}` : 'page'];
    }),
  );
}

describe('toRouteObjects', () => {
  it('turns the menu into pages and redirects, with /404 for the rest', () => {
    expect(table(toRouteObjects(normalizeRoutes(MENU)))).toEqual({
      '/': '→ /device',
      '/index': 'page',
      '/person': '→ /person/info',
      '/person/info': 'page',
      '/device': '→ /device/index',
      '/device/index': 'page',
      '/system': '→ /system/identity',
      '/system/identity': 'page',
      '/error': '→ /error/403',
      '/error/403': 'page',
      '/error/404': 'page',
      '*': '→ /404',
    });
  });

  it('lands / on the first page when the menu has no root record', () => {
    const routes = normalizeRoutes(MENU.filter((r) => r.path !== '/'));
    expect(table(toRouteObjects(routes))['/']).toBe('→ /device/index');
  });
});
