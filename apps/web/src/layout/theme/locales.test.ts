import { describe, expect, it } from 'vitest';
import { LAYOUTS, THEMES } from '../../config/settings';
import { itHasLocaleParity, leaves } from '../../lib/testing/locale-parity';
import { COLUMN_STYLES, TABS_BAR_STYLES } from '../layout-settings';
import locales from './locales';

describe('theme drawer locales', () => {
  itHasLocaleParity('layout', locales);

  it('names every layout, theme, column style and tab style', () => {
    const zh = leaves(locales.zh);
    const wanted = [
      ...LAYOUTS.map((v) => `layout.layouts.${v}`),
      ...THEMES.map((v) => `layout.themes.${v}`),
      ...COLUMN_STYLES.map((v) => `layout.columnStyles.${v}`),
      ...TABS_BAR_STYLES.map((v) => `layout.tabsBarStyles.${v}`),
    ];
    expect(wanted.filter((k) => !zh.has(k))).toEqual([]);
  });

  it('has every literal key the drawer and the layouts ask for', () => {
    const sources = import.meta.glob<string>(
      ['../**/*.{ts,tsx}', '!../**/*.test.{ts,tsx}', '!../header/**', '!../tabs/**', '!../keep-alive/**'],
      {
        query: '?raw',
        import: 'default',
        eager: true,
      },
    );
    const used = new Set<string>();
    for (const text of Object.values(sources)) {
      for (const m of text.matchAll(
        /['"`](layout\.(?:drawer|layouts|themes|mainMenu)[A-Za-z0-9_.]*[A-Za-z0-9_])['"`]/g,
      ))
        used.add(m[1]);
      // `layout.drawer.${key}` for the switches
      for (const m of text.matchAll(/SWITCHES\.\w+|'(show\w+)'/g)) if (m[1]) used.add(`layout.drawer.${m[1]}`);
    }
    expect(used.size).toBeGreaterThan(10);
    const zh = leaves(locales.zh);
    expect([...used].filter((k) => !zh.has(k))).toEqual([]);
  });
});
