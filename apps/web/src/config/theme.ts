import type { ThemeConfig } from 'antd';
import type { ThemeName } from './settings';

/**
 * Colour pairs of the themes of SPEC §2 ("<primary>-<menu>"). Only blue-black is wired to a switch today;
 * the others are here so the theme drawer (a later issue) only has to pick one.
 */
interface Palette {
  primary: string;
  /** Side menu background; `null` for the light ("-white") menus. */
  menuBg: string | null;
}

const PALETTES: Record<ThemeName, Palette> = {
  'blue-black': { primary: '#4e88f3', menuBg: '#21252b' },
  'blue-white': { primary: '#4e88f3', menuBg: null },
  'green-black': { primary: '#41b584', menuBg: '#21252b' },
  'green-white': { primary: '#41b584', menuBg: null },
  'purple-black': { primary: '#6954f0', menuBg: '#21252b' },
  'purple-white': { primary: '#6954f0', menuBg: null },
  'red-black': { primary: '#f56c6c', menuBg: '#21252b' },
  'red-white': { primary: '#f56c6c', menuBg: null },
  ocean: { primary: '#3e8df7', menuBg: '#1e3c72' },
};

export const isDarkMenu = (name: ThemeName): boolean => PALETTES[name].menuBg !== null;

export function themeConfig(name: ThemeName): ThemeConfig {
  const { primary, menuBg } = PALETTES[name];
  return {
    token: { colorPrimary: primary, colorInfo: primary, borderRadius: 4 },
    components: {
      Layout: {
        siderBg: menuBg ?? '#ffffff',
        headerBg: '#ffffff',
        headerHeight: 60,
        headerPadding: '0 16px',
        bodyBg: '#f6f8f9',
        footerBg: 'transparent',
      },
      Menu: menuBg
        ? { darkItemBg: menuBg, darkSubMenuItemBg: 'rgba(0, 0, 0, 0.18)', darkItemSelectedBg: primary }
        : {},
    },
  };
}
