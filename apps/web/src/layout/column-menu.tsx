import { Badge } from 'antd';
import { useTranslation } from 'react-i18next';
import { routeTitle } from '../lib/menu-routes';
import { cls, menuSurface } from './layouts/shell-parts';
import { useShell } from './layouts/shell-context';
import { useLayoutSettings } from './layout-settings';
import { Logo } from './logo';
import { MenuIcon } from './menu-icon';
import { findNode, opensColumn, shownBadge, shownDot, type MenuNode } from './menu-model';
import { SideMenu } from './side-menu';
import { useMenu } from './use-menu';

function ColumnItemIcon({ node }: { node: MenuNode }) {
  const icon = <MenuIcon name={node.meta.icon} />;
  const badge = shownBadge(node.meta);
  if (badge !== undefined) {
    return (
      <Badge count={badge} size="small" offset={[4, -2]}>
        <span className="cpc-column-icon">{icon}</span>
      </Badge>
    );
  }
  if (shownDot(node.meta)) {
    return (
      <Badge dot offset={[2, 2]}>
        <span className="cpc-column-icon">{icon}</span>
      </Badge>
    );
  }
  return <span className="cpc-column-icon">{icon}</span>;
}

/**
 * The column layout's side (SPEC §2): a narrow bar of the first-level items and, beside it, the selected
 * item's children. An item marked `noColumn` (or without children) goes straight to its page. The
 * column style shapes the bar's items: icon above title, icon beside title, card tiles, or an arrow.
 */
export function ColumnSide() {
  const { t } = useTranslation();
  const shell = useShell();
  const columnStyle = useLayoutSettings((s) => s.columnStyle);
  const menu = useMenu();
  const active = menu.activeTop ? findNode(menu.nodes, menu.activeTop) : undefined;
  const second = opensColumn(active) && !shell.collapse ? active : undefined;
  const dark = shell.colors.darkMenu;

  return (
    <div className="cpc-column-side">
      <nav
        className={cls('cpc-column-bar', `cpc-column-bar--${columnStyle}`, dark && 'cpc-on-dark')}
        style={menuSurface(shell)}
        aria-label={t('layout.mainMenu')}
        data-testid="column-bar"
        data-column-style={columnStyle}
      >
        <Logo collapsed dark={dark} />
        <div className="cpc-column-items">
          {menu.nodes.map((node) => {
            const current = node.key === menu.activeTop;
            return (
              <button
                key={node.key}
                type="button"
                className="cpc-column-item"
                aria-current={current ? 'page' : undefined}
                title={routeTitle(node.meta, t)}
                onClick={() => menu.open(node.key)}
                data-key={node.key}
              >
                <ColumnItemIcon node={node} />
                <span className="cpc-column-title">{routeTitle(node.meta, t)}</span>
              </button>
            );
          })}
        </div>
      </nav>
      {second && (
        <div className="cpc-column-second" data-testid="column-menu">
          <div className="cpc-column-second-title">{routeTitle(second.meta, t)}</div>
          <SideMenu nodes={second.children} dark={false} />
        </div>
      )}
    </div>
  );
}
