import { createContext, useContext } from 'react';
import type { LayoutName } from '../../config/settings';
import type { ShellColors } from '../../config/theme';

/** What the parts of a layout share: the arrangement in force and how its surfaces are painted. */
export interface Shell {
  /** The layout shown: the chosen one, or vertical below the mobile breakpoint. */
  layout: LayoutName;
  isMobile: boolean;
  colors: ShellColors;
  /** The header is painted with the menu's surface (see `headerOnMenuSurface`). */
  headerOnMenu: boolean;
  /** The decorative menu background is on (and the layout allows it). */
  menuArt: boolean;
  collapse: boolean;
  toggleCollapse(): void;
  /** Below the breakpoint the side bar is a drawer; whether it is open. */
  mobileMenuOpen: boolean;
  setMobileMenuOpen(open: boolean): void;
}

export const ShellContext = createContext<Shell | null>(null);

export function useShell(): Shell {
  const shell = useContext(ShellContext);
  if (!shell) throw new Error('useShell outside the main layout');
  return shell;
}

/** The layouts whose side bar does not take the decorative background (SPEC §2). */
export const NO_MENU_ART: readonly LayoutName[] = ['float', 'horizontal'];

export const SIDE_WIDTH = 256;
export const SIDE_COLLAPSED_WIDTH = 64;
