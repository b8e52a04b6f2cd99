import { theme } from 'antd';
import { describe, expect, it } from 'vitest';
import { LAYOUTS, THEMES } from './settings';
import { themeConfig } from './antd-theme';
import { headerOnMenuSurface, isDarkMenu, randomThemeName, shellColors } from './theme';

describe('themeConfig', () => {
  it.each([
    ['blue-black', '#4e88f3', true],
    ['blue-white', '#4e88f3', false],
    ['green-black', '#41b584', true],
    ['green-white', '#41b584', false],
    ['purple-black', '#6954f0', true],
    ['purple-white', '#6954f0', false],
    ['red-black', '#f56c6c', true],
    ['red-white', '#f56c6c', false],
    ['ocean', '#3e8df7', true],
  ] as const)('%s: primary %s, dark menu %s', (name, primary, dark) => {
    const config = themeConfig(name);
    expect(config.token?.colorPrimary).toBe(primary);
    expect(shellColors(name).darkMenu).toBe(dark);
    expect(isDarkMenu(name)).toBe(dark);
  });

  it('gives "-black" themes a dark menu surface and "-white" ones the page container colour', () => {
    expect(shellColors('red-black').menuBg).toBe('#21252b');
    expect(shellColors('red-white').menuBg).toBe('#ffffff');
    expect(shellColors('red-black').menuBg).not.toBe(shellColors('red-white').menuBg);
  });

  it('paints ocean with a blue gradient, top to bottom in the side bar and left to right in the header', () => {
    const c = shellColors('ocean');
    expect(c.menuBg).toMatch(/^linear-gradient\(180deg/);
    expect(c.menuBarBg).toMatch(/^linear-gradient\(90deg/);
    expect(c.menuSolid).toMatch(/^#[0-9a-f]{6}$/);
  });

  it('switches to the dark algorithm and dark surfaces in the dark scheme', () => {
    expect(themeConfig('blue-white', 'dark').algorithm).toBe(theme.darkAlgorithm);
    expect(themeConfig('blue-white', 'light').algorithm).toBe(theme.defaultAlgorithm);
    const dark = shellColors('blue-white', 'dark');
    expect(dark.containerBg).toBe('#141414');
    expect(themeConfig('blue-white', 'dark').components?.Layout?.headerBg).toBe('#141414');
    expect(themeConfig('blue-white', 'light').components?.Layout?.bodyBg).not.toBe(
      themeConfig('blue-white', 'dark').components?.Layout?.bodyBg,
    );
    // a light menu in the dark scheme is a dark surface too
    expect(dark.menuBg).toBe('#141414');
  });

  it('keeps menus transparent so their surface (gradient, art) shows', () => {
    const menu = themeConfig('blue-black').components?.Menu;
    expect(menu?.darkItemBg).toBe('transparent');
    expect(menu?.itemBg).toBe('transparent');
  });
});

describe('headerOnMenuSurface', () => {
  it.each(LAYOUTS.map((l) => [l, l === 'horizontal' || l === 'common'] as const))(
    '%s with blue-black: %s',
    (layout, expected) => {
      expect(headerOnMenuSurface(layout, 'blue-black')).toBe(expected);
    },
  );

  it('is always on for ocean', () => {
    expect(LAYOUTS.every((l) => headerOnMenuSurface(l, 'ocean'))).toBe(true);
  });
});

describe('randomThemeName', () => {
  it('never picks the current theme and can pick every other', () => {
    for (const current of THEMES) {
      const picked = new Set(
        [0, 0.13, 0.26, 0.38, 0.51, 0.63, 0.76, 0.88, 0.9999].map((r) => randomThemeName(current, () => r)),
      );
      expect(picked.has(current)).toBe(false);
      expect(picked.size).toBe(THEMES.length - 1);
    }
  });
});
