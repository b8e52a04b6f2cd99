import { describe, expect, it } from 'vitest';
import type { RouteRecord } from '@cpc/contracts/route';
import { buildMenu, shownBadge, shownDot, usesLiveSource, withLiveCounts } from './menu-model';
import { routeTitle } from '../lib/menu-routes';

const access = { admin: false, roles: [], permissions: [] };
const routes: RouteRecord[] = [
  {
    path: '/inbox',
    name: 'Inbox',
    meta: { title: 'route.inbox', badge: { source: 'unreadMessages' } },
    children: [{ path: '/inbox/all', name: 'All', meta: { title: 'x', dot: { source: 'unreadMessages' } } }],
  },
  { path: '/fixed', name: 'Fixed', meta: { title: 'route.fixed', badge: 'new', dot: true } },
];

describe('live badges and dots', () => {
  it('knows when the menu has a live source', () => {
    expect(usesLiveSource(routes)).toBe(true);
    expect(usesLiveSource([routes[1]])).toBe(false);
  });

  it('shows the live count, and nothing at 0 or before it is counted', () => {
    const [inbox] = withLiveCounts(buildMenu(routes, access), { unreadMessages: 3 });
    expect(inbox.meta.badge).toBe(3);
    expect(inbox.children?.[0].meta.dot).toBe(true);
    const [none] = withLiveCounts(buildMenu(routes, access), { unreadMessages: 0 });
    expect(none.meta.badge).toBeUndefined();
    expect(none.children?.[0].meta.dot).toBe(false);
    expect(shownBadge(routes[0].meta)).toBeUndefined();
    expect(shownDot(routes[0].children![0].meta)).toBe(false);
  });

  it('keeps literal badges and dots', () => {
    expect(shownBadge(routes[1].meta, { unreadMessages: 9 })).toBe('new');
    expect(shownDot(routes[1].meta)).toBe(true);
  });
});

describe('routeTitle', () => {
  const t = (key: string) => `t(${key})`;
  it('prefers the literal title of the language, else translates the key', () => {
    const meta = { title: 'route.device', i18n: { zh: '设备', en: 'Devices' } };
    expect(routeTitle(meta, t, 'en')).toBe('Devices');
    expect(routeTitle(meta, t, 'zh')).toBe('设备');
    expect(routeTitle({ ...meta, i18n: { zh: '设备', en: ' ' } }, t, 'en')).toBe('t(route.device)');
    expect(routeTitle({ title: 'route.device' }, t, 'en')).toBe('t(route.device)');
  });
});
