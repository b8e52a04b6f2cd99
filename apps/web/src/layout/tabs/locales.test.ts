import { describe, expect, it } from 'vitest';
import locales from './locales';
import { TAB_MENU_ACTIONS } from './tab-menu';
import { itHasLocaleParity, leaves } from '../../lib/testing/locale-parity';

describe('tab bar locales', () => {
  itHasLocaleParity('layout.tabs', locales);

  it('has every key the tab bar and the refresh button ask for', () => {
    const sources = import.meta.glob<string>(['./*.{ts,tsx}', '../header/refresh-button.tsx', '!./*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    });
    const used = new Set<string>();
    for (const text of Object.values(sources)) {
      for (const m of text.matchAll(/['"`](layout\.tabs\.[A-Za-z0-9_.]*[A-Za-z0-9_])['"`]/g)) used.add(m[1]);
    }
    // the menus build their labels from the action names
    for (const action of TAB_MENU_ACTIONS) used.add(`layout.tabs.${action}`);
    const zh = leaves(locales.zh);
    expect(used.size).toBeGreaterThan(TAB_MENU_ACTIONS.length);
    expect([...used].filter((k) => !zh.has(k))).toEqual([]);
  });
});
