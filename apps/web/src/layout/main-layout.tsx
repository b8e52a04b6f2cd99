import { Layout } from 'antd';
import { useMenuLiveUpdates } from '../lib/menu-live';
import { Suspense, useMemo, useState, type CSSProperties, type ReactNode } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { LayoutName } from '../config/settings';
import { headerOnMenuSurface, shellColors } from '../config/theme';
import { AppFooter } from './app-footer';
import { LockScreen } from './header/lock-screen';
import type { Arrangement, ArrangementContext } from './layouts/arrangement';
import { columnLayout } from './layouts/column-layout';
import { commonLayout } from './layouts/common-layout';
import { comprehensiveLayout } from './layouts/comprehensive-layout';
import { floatLayout } from './layouts/float-layout';
import { horizontalLayout } from './layouts/horizontal-layout';
import { NO_MENU_ART, ShellContext, type Shell } from './layouts/shell-context';
import { cls, PageTransition } from './layouts/shell-parts';
import { verticalLayout } from './layouts/vertical-layout';
import { useLayoutSettings } from './layout-settings';
import { PageLoading } from './page-loading';
import { ThemeDrawerHost, ThemeSettingTab } from './theme/theme-drawer-toggle';
import { useIsMobile } from './use-mobile';

const ARRANGEMENTS: Record<LayoutName, (ctx: ArrangementContext) => Arrangement> = {
  vertical: verticalLayout,
  horizontal: horizontalLayout,
  column: columnLayout,
  comprehensive: comprehensiveLayout,
  common: commonLayout,
  float: floatLayout,
};

/**
 * The console's shell (SPEC §2): the layout chosen in the theme drawer around the page area, with the
 * tab bar under the header. Below the mobile breakpoint it is the vertical layout with the side bar in
 * a drawer; the chosen layout is kept and comes back on a wider screen.
 */
export function MainLayout({ tabs, children }: { tabs?: ReactNode; children: ReactNode }) {
  const isMobile = useIsMobile();
  useMenuLiveUpdates();
  const s = useLayoutSettings(
    useShallow((st) => ({
      layout: st.layout,
      themeName: st.themeName,
      colorScheme: st.colorScheme,
      background: st.background,
      fixedHeader: st.fixedHeader,
      showTabs: st.showTabs,
      collapse: st.collapse,
      lock: st.lock,
      toggleCollapse: st.toggleCollapse,
      showTheme: st.showTheme,
      showThemeSetting: st.showThemeSetting,
    })),
  );
  const [mobileMenuOpen, setMobileMenuOpen] = useState(false);
  const layout: LayoutName = isMobile ? 'vertical' : s.layout;

  const shell = useMemo<Shell>(
    () => ({
      layout,
      isMobile,
      colors: shellColors(s.themeName, s.colorScheme),
      headerOnMenu: headerOnMenuSurface(layout, s.themeName),
      menuArt: s.background === 'vab-background' && !NO_MENU_ART.includes(layout),
      collapse: s.collapse,
      toggleCollapse: s.toggleCollapse,
      mobileMenuOpen,
      setMobileMenuOpen,
    }),
    [layout, isMobile, s.themeName, s.colorScheme, s.background, s.collapse, s.toggleCollapse, mobileMenuOpen],
  );

  // the same elements from one render to the next: a change of settings re-renders the shell, and only
  // a change of layout builds its parts anew
  const parts = useMemo(() => ARRANGEMENTS[layout]({ isMobile }), [layout, isMobile]);
  // SPEC §4: the side bar hides while the screen is locked
  const side = s.lock ? null : parts.side;
  // SPEC §2: the common layout has no fixed header
  const fixed = s.fixedHeader && layout !== 'common';
  const { colors } = shell;
  const vars = {
    '--cpc-primary': colors.primary,
    '--cpc-menu-solid': colors.menuSolid,
    '--cpc-container-bg': colors.containerBg,
    '--cpc-body-bg': colors.bodyBg,
  } as CSSProperties;

  return (
    <ShellContext value={shell}>
      <Layout
        className={cls('cpc-shell', `cpc-shell--${layout}`)}
        style={vars}
        data-layout={layout}
        data-theme={s.themeName}
        data-color-scheme={s.colorScheme}
        data-collapsed={String(isMobile ? !mobileMenuOpen : s.collapse)}
        data-mobile={String(isMobile)}
      >
        {parts.top}
        <Layout hasSider={!!side} className="cpc-shell-body">
          {side}
          <Layout className="cpc-main">
            <div
              className={cls('cpc-main-head', fixed && 'is-fixed')}
              data-testid="main-head"
              data-fixed={String(fixed)}
            >
              {parts.header}
              {s.showTabs && tabs && <div className="cpc-tabs">{tabs}</div>}
            </div>
            <Layout.Content className="cpc-content">
              <PageTransition>
                <Suspense fallback={<PageLoading />}>{children}</Suspense>
              </PageTransition>
            </Layout.Content>
            <AppFooter />
          </Layout>
        </Layout>
        {(s.showThemeSetting || !s.showTheme) && <ThemeSettingTab />}
        <ThemeDrawerHost />
        <LockScreen />
      </Layout>
    </ShellContext>
  );
}
