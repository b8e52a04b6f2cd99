import { describe, expect, it } from 'vitest';
import { canAccess, filterRoutes, type Access, type Guard, type RouteRecord } from './route.ts';

const user: Access = { admin: false, roles: ['editor'], permissions: ['device:view', 'device:reboot'] };
const admin: Access = { admin: true, roles: [], permissions: [] };

// SPEC §6: a list passes on any match; an object checks role and permission lists with its mode.
const cases: Array<[string, Guard | undefined, boolean]> = [
  ['no guard', undefined, true],
  ['empty list', [], true],
  ['list with an owned role', ['Admin', 'editor'], true],
  ['list with an owned permission', ['device:reboot'], true],
  ['list with nothing owned', ['Admin', 'device:delete'], false],
  ['oneOf (default) with one owned', { permission: ['device:delete', 'device:view'] }, true],
  ['oneOf with none owned', { role: ['Admin'], mode: 'oneOf' }, false],
  ['allOf with all owned', { role: ['editor'], permission: ['device:view', 'device:reboot'], mode: 'allOf' }, true],
  ['allOf with one missing', { permission: ['device:view', 'device:delete'], mode: 'allOf' }, false],
  ['except with none owned', { role: ['Admin'], mode: 'except' }, true],
  ['except with one owned', { permission: ['device:view'], mode: 'except' }, false],
];

describe('canAccess', () => {
  it.each(cases)('%s', (_n, guard, expected) => expect(canAccess(guard, user)).toBe(expected));
  it.each(cases)('admin passes: %s', (_n, guard) => expect(canAccess(guard, admin)).toBe(true));
});

describe('filterRoutes', () => {
  const routes: RouteRecord[] = [
    {
      path: '/device',
      name: 'Device',
      meta: { title: 'd' },
      children: [{ path: 'index', name: 'DeviceIndex', meta: { title: 'i' } }],
    },
    {
      path: '/error',
      name: 'Error',
      meta: { title: 'e', guard: ['Admin'] },
      children: [{ path: '403', name: 'E403', meta: { title: '403' } }],
    },
    {
      path: '/system',
      name: 'System',
      meta: { title: 's' },
      children: [
        { path: 'secret', name: 'Secret', meta: { title: 'x', guard: { permission: ['system:secret'] } } },
        { path: 'ok', name: 'Ok', meta: { title: 'o', guard: ['device:view'] } },
      ],
    },
  ];
  it('drops guarded records and their children for a user without the guard', () => {
    const out = filterRoutes(routes, user);
    expect(out.map((r) => r.name)).toEqual(['Device', 'System']);
    expect(out[1].children!.map((r) => r.name)).toEqual(['Ok']);
  });
  it('keeps everything for admin', () => {
    expect(filterRoutes(routes, admin)).toEqual(routes);
  });
});
