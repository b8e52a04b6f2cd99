import { MenuFoldOutlined, MenuUnfoldOutlined } from '@ant-design/icons';
import { Button, Drawer, Layout } from 'antd';
import { useEffect, useRef, type CSSProperties, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { Breadcrumbs } from '../breadcrumbs';
import { HeaderTools } from '../header/header-tools';
import { useLayoutSettings } from '../layout-settings';
import { Logo } from '../logo';
import type { MenuNode } from '../menu-model';
import { SideMenu } from '../side-menu';
import vabArt from '../theme/vab-background.svg';
import { SIDE_COLLAPSED_WIDTH, SIDE_WIDTH, useShell, type Shell } from './shell-context';

export const cls = (...names: (string | false | undefined)[]): string => names.filter(Boolean).join(' ');

/** The side bar's and column bars' background: the theme's surface, under the decorative art when it is on. */
export function menuSurface(shell: Shell): CSSProperties {
  const { menuBg } = shell.colors;
  return { background: shell.menuArt ? `url("${vabArt}") center bottom / cover no-repeat, ${menuBg}` : menuBg };
}

/** Folds the side bar (the second column in the column layout); below the breakpoint, opens its drawer. */
export function FoldButton() {
  const { t } = useTranslation();
  const shell = useShell();
  const folded = shell.isMobile ? !shell.mobileMenuOpen : shell.collapse;
  const onClick = shell.isMobile ? () => shell.setMobileMenuOpen(!shell.mobileMenuOpen) : shell.toggleCollapse;
  return (
    <Button
      type="text"
      icon={folded ? <MenuUnfoldOutlined /> : <MenuFoldOutlined />}
      onClick={onClick}
      aria-label={t(folded ? 'layout.expand' : 'layout.collapse')}
      aria-expanded={!folded}
      data-testid="fold-button"
    />
  );
}

interface ShellHeaderProps {
  children?: ReactNode;
  /** Paint with the menu's surface; by default as the theme and layout say (`headerOnMenuSurface`). */
  surface?: 'menu' | 'plain';
  tools?: boolean;
  className?: string;
  testId?: string;
}

/** A header row: what the layout puts at its start, and the header tools at its end. */
export function ShellHeader({ children, surface, tools = true, className, testId = 'header' }: ShellHeaderProps) {
  const shell = useShell();
  const onMenu = surface ? surface === 'menu' : shell.headerOnMenu;
  return (
    <Layout.Header
      className={cls('cpc-header', onMenu && shell.colors.darkMenu && 'cpc-on-dark', className)}
      style={onMenu ? { background: shell.colors.menuBarBg } : undefined}
      data-testid={testId}
    >
      <div className="cpc-header-start">{children}</div>
      {tools && <HeaderTools />}
    </Layout.Header>
  );
}

interface SideBarProps {
  /** The part of the menu to show; all of it by default. */
  nodes?: MenuNode[];
  logo?: boolean;
  float?: boolean;
}

/**
 * The slim bar above the page with the breadcrumbs (SPEC §2: the header shows them), for the layouts whose
 * header is taken by the logo or the menu (common, horizontal, comprehensive).
 */
export function NavBar({ fold = false }: { fold?: boolean }) {
  return (
    <ShellHeader surface="plain" tools={false} className="cpc-header--nav" testId="nav-bar">
      {fold && <FoldButton />}
      <Breadcrumbs />
    </ShellHeader>
  );
}

/** The side bar: logo and inline menu on the theme's menu surface, folding to its icons. */
export function SideBar({ nodes, logo = true, float = false }: SideBarProps) {
  const shell = useShell();
  const dark = shell.colors.darkMenu;
  return (
    <Layout.Sider
      width={SIDE_WIDTH}
      collapsedWidth={SIDE_COLLAPSED_WIDTH}
      collapsed={shell.collapse}
      trigger={null}
      collapsible
      theme={dark ? 'dark' : 'light'}
      className={cls('cpc-side-bar', float && 'cpc-side-bar--float', dark && 'cpc-on-dark')}
      style={menuSurface(shell)}
      data-testid="side-bar"
    >
      {logo && <Logo collapsed={shell.collapse} dark={dark} />}
      <SideMenu nodes={nodes} dark={dark} collapsed={shell.collapse} />
    </Layout.Sider>
  );
}

/** Below the breakpoint the side bar slides in from the left and closes after a choice. */
export function MobileSideBar() {
  const shell = useShell();
  const dark = shell.colors.darkMenu;
  const close = () => shell.setMobileMenuOpen(false);
  return (
    <Drawer
      placement="left"
      open={shell.mobileMenuOpen}
      onClose={close}
      closable={false}
      size={SIDE_WIDTH}
      styles={{ body: { padding: 0, ...menuSurface(shell) } }}
      data-testid="mobile-menu"
    >
      <Logo dark={dark} />
      <SideMenu dark={dark} onNavigate={close} />
    </Drawer>
  );
}

/**
 * Replays an entrance animation on the page area at each navigation (SPEC §2 page transition). It
 * animates the element rather than remounting it, so the kept-alive pages inside survive.
 */
export function PageTransition({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const { pathname } = useLocation();
  const on = useLayoutSettings((s) => s.showPageTransition);
  useEffect(() => {
    const el = ref.current;
    if (!on || !el?.animate || window.matchMedia?.('(prefers-reduced-motion: reduce)').matches) return;
    el.animate(
      [
        { opacity: 0, transform: 'translateX(-16px)' },
        { opacity: 1, transform: 'none' },
      ],
      { duration: 280, easing: 'ease-out' },
    );
  }, [pathname, on]);
  return (
    <div ref={ref} className="cpc-page">
      {children}
    </div>
  );
}
