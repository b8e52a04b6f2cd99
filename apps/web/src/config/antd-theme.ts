import { theme, type ThemeConfig } from 'antd';
import type { ThemeName } from './settings';
import { isOceanMenu, shellColors, type ColorScheme } from './theme';

/** antd's tokens for a theme of SPEC §2 (the console's providers; the sign-in page paints with CSS variables). */
export function themeConfig(name: ThemeName, scheme: ColorScheme = 'light'): ThemeConfig {
  const c = shellColors(name, scheme);
  return {
    algorithm: scheme === 'dark' ? theme.darkAlgorithm : theme.defaultAlgorithm,
    token: { colorPrimary: c.primary, colorInfo: c.primary, colorLink: c.primary, borderRadius: 4 },
    components: {
      Layout: {
        siderBg: c.menuSolid,
        lightSiderBg: c.containerBg,
        headerBg: c.containerBg,
        headerHeight: 60,
        headerPadding: '0 16px',
        bodyBg: c.bodyBg,
        footerBg: 'transparent',
      },
      // the surfaces behind the menus paint them (gradients and the decorative background included)
      Menu: {
        itemBg: 'transparent',
        subMenuItemBg: 'transparent',
        darkItemBg: 'transparent',
        darkSubMenuItemBg: 'rgba(0, 0, 0, 0.18)',
        darkPopupBg: c.menuSolid,
        darkItemSelectedBg: isOceanMenu(name) ? 'rgba(255, 255, 255, 0.22)' : c.primary,
      },
    },
  };
}
