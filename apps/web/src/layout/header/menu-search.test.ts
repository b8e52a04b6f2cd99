import { describe, expect, it } from 'vitest';
import type { Access } from '@cpc/contracts';
import { normalizeRoutes } from '../../lib/menu-routes';
import { MENU } from '../../lib/testing/fixtures';
import enLocale from '../../locales/en';
import zhLocale from '../../locales/zh';
import { buildMenu } from '../menu-model';
import { menuSearchItems, searchMenu } from './menu-search';

type Dict = { [k: string]: string | Dict };
const translator = (dict: Dict) => (key: string) => {
  const value = key
    .split('.')
    .reduce<string | Dict | undefined>((d, k) => (typeof d === 'object' ? d[k] : undefined), dict);
  return typeof value === 'string' ? value : key;
};
const en = translator(enLocale as Dict);
const zh = translator(zhLocale as Dict);

const routes = normalizeRoutes([
  ...MENU,
  { path: 'https://docs.example.com', name: 'Docs', meta: { title: 'Docs', icon: 'file', target: '_blank' } },
]);
const admin: Access = { admin: true, roles: ['Admin'], permissions: [] };
const customer: Access = { admin: false, roles: [], permissions: ['device:view'] };

const paths = (items: { path: string }[]) => items.map((i) => i.path);

describe('menuSearchItems', () => {
  it('lists the pages of the menu with translated titles and their groups', () => {
    const items = menuSearchItems(buildMenu(routes, admin), en);
    expect(items).toContainEqual({
      path: '/system/identity',
      title: 'Identity review',
      trail: ['System'],
      icon: 'idcard',
      external: false,
    });
    expect(items).toContainEqual({
      path: 'https://docs.example.com',
      title: 'Docs',
      trail: [],
      icon: 'file',
      external: true,
      target: '_blank',
    });
    // groups lead to their pages; hidden pages are not offered
    expect(paths(items)).not.toContain('/system');
    expect(paths(items)).not.toContain('/person/info');
  });

  it('offers only what the guard lets the user open', () => {
    const items = menuSearchItems(buildMenu(routes, customer), en);
    expect(paths(items)).toEqual(['/device/index', 'https://docs.example.com']);
  });
});

describe('searchMenu', () => {
  const enItems = menuSearchItems(buildMenu(routes, admin), en);
  const zhItems = menuSearchItems(buildMenu(routes, admin), zh);

  it.each([
    ['part of a title, any case', enItems, 'IDENTITY', ['/system/identity']],
    ['a word in the middle', enItems, 'review', ['/system/identity']],
    ['a zh title', zhItems, '审核', ['/system/identity']],
    ['a group title', enItems, 'error pages', ['/error/403', '/error/404']],
    ['a path', enItems, '/error/40', ['/error/403', '/error/404']],
    ['several words, all required', enItems, 'system identity', ['/system/identity']],
    ['nothing', enItems, 'printer queue', []],
    ['a blank query', enItems, '   ', []],
  ])('matches %s', (_, items, query, expected) => {
    expect(paths(searchMenu(items, query))).toEqual(expected);
  });

  it('puts title matches before group and path matches', () => {
    const items = [
      { path: '/a/devices-log', title: 'Log', trail: [], external: false },
      { path: '/b', title: 'Other', trail: ['Devices'], external: false },
      { path: '/c', title: 'My devices', trail: [], external: false },
      { path: '/d', title: 'Devices', trail: [], external: false },
    ];
    expect(paths(searchMenu(items, 'devices'))).toEqual(['/d', '/c', '/b', '/a/devices-log']);
  });

  it('stops at the limit', () => {
    const items = Array.from({ length: 30 }, (_, i) => ({
      path: `/p${i}`,
      title: `Page ${i}`,
      trail: [],
      external: false,
    }));
    expect(searchMenu(items, 'page', 5)).toHaveLength(5);
  });
});
