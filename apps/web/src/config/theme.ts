import { THEMES, type LayoutName, type ThemeName } from './settings';

export type ColorScheme = 'light' | 'dark';

/**
 * The themes of SPEC §2 are "<primary>-<menu>": the primary colour, and a dark ("-black") or light
 * ("-white") menu. Ocean paints its menu and header with a blue gradient.
 */
interface Palette {
  primary: string;
  menu: 'black' | 'white' | 'ocean';
}

const PALETTES: Record<ThemeName, Palette> = {
  'blue-black': { primary: '#4e88f3', menu: 'black' },
  'blue-white': { primary: '#4e88f3', menu: 'white' },
  'green-black': { primary: '#41b584', menu: 'black' },
  'green-white': { primary: '#41b584', menu: 'white' },
  'purple-black': { primary: '#6954f0', menu: 'black' },
  'purple-white': { primary: '#6954f0', menu: 'white' },
  'red-black': { primary: '#f56c6c', menu: 'black' },
  'red-white': { primary: '#f56c6c', menu: 'white' },
  ocean: { primary: '#3e8df7', menu: 'ocean' },
};

/** The colours of the shell around the pages, for one theme in one colour scheme. */
export interface ShellColors {
  primary: string;
  /** Whether menus are drawn light-on-dark (antd menu theme "dark"). */
  darkMenu: boolean;
  /** Background of the side bar and the column bars; a gradient for ocean. */
  menuBg: string;
  /** The same surface running left to right, for a header that carries the logo or the menu. */
  menuBarBg: string;
  /** A flat colour of the menu surface, for its pop-ups. */
  menuSolid: string;
  /** Header, tabs and cards. */
  containerBg: string;
  /** Behind the pages. */
  bodyBg: string;
}

const SURFACES = {
  light: { container: '#ffffff', body: '#f6f8f9', black: '#21252b' },
  dark: { container: '#141414', body: '#000000', black: '#1b1d22' },
} as const;

const OCEAN = {
  light: ['#0f3c8c', '#1f6fdc'],
  dark: ['#0a1f44', '#12407f'],
} as const;

export function shellColors(name: ThemeName, scheme: ColorScheme = 'light'): ShellColors {
  const { primary, menu } = PALETTES[name] ?? PALETTES['blue-black'];
  const surface = SURFACES[scheme];
  const base = { primary, containerBg: surface.container, bodyBg: surface.body };
  if (menu === 'ocean') {
    const [from, to] = OCEAN[scheme];
    return {
      ...base,
      darkMenu: true,
      menuBg: `linear-gradient(180deg, ${from} 0%, ${to} 100%)`,
      menuBarBg: `linear-gradient(90deg, ${from} 0%, ${to} 100%)`,
      menuSolid: from,
    };
  }
  const flat = menu === 'black' ? surface.black : surface.container;
  return { ...base, darkMenu: menu === 'black', menuBg: flat, menuBarBg: flat, menuSolid: flat };
}

export const isDarkMenu = (name: ThemeName): boolean => PALETTES[name]?.menu !== 'white';

export const isOceanMenu = (name: ThemeName): boolean => PALETTES[name]?.menu === 'ocean';

/**
 * Whether the header is painted with the menu's surface: in the layouts where it carries the logo and
 * the menu (horizontal, common), and always for ocean, whose header is part of its gradient.
 */
export const headerOnMenuSurface = (layout: LayoutName, name: ThemeName): boolean =>
  layout === 'horizontal' || layout === 'common' || isOceanMenu(name);

/** A theme other than `current`, for the drawer's random theme. */
export function randomThemeName(current: ThemeName, random: () => number = Math.random): ThemeName {
  const others = THEMES.filter((n) => n !== current);
  return others[Math.min(others.length - 1, Math.floor(random() * others.length))];
}
