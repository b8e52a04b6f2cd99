import { Badge, type MenuProps } from 'antd';
import type { TFunction } from 'i18next';
import type { ReactNode } from 'react';
import { MENU_SCROLL_THRESHOLD } from '../config/settings';
import { routeTitle } from '../lib/menu-routes';
import { MenuIcon } from './menu-icon';
import { shownBadge, shownDot, type MenuNode } from './menu-model';

export type MenuItem = NonNullable<MenuProps['items']>[number];

/** Class of a group long enough to scroll (SPEC §9: more than MENU_SCROLL_THRESHOLD children). */
export const SCROLL_CLASS = 'cpc-menu-scroll';

/** An item's title with its badge or red dot (SPEC §3 `badge`, `dot`); the bare title otherwise. */
export function menuLabel(node: MenuNode, title: string): ReactNode {
  const badge = shownBadge(node.meta);
  if (badge !== undefined) {
    return (
      <span>
        {title} <Badge count={badge} size="small" style={{ boxShadow: 'none' }} />
      </span>
    );
  }
  if (shownDot(node.meta)) {
    return (
      <Badge dot offset={[6, 0]}>
        <span style={{ color: 'inherit' }}>{title}</span>
      </Badge>
    );
  }
  return title;
}

/**
 * The antd items of a menu tree, for the side, top and column menus alike. `depth` 1 keeps only the
 * first level (the comprehensive layout's header).
 */
export function toMenuItems(nodes: MenuNode[], t: TFunction, depth = Infinity): MenuItem[] {
  return nodes.map((node) => {
    const children = depth > 1 && node.children ? toMenuItems(node.children, t, depth - 1) : undefined;
    const scroll = !!children && children.length > MENU_SCROLL_THRESHOLD;
    return {
      key: node.key,
      icon: <MenuIcon name={node.meta.icon} />,
      label: menuLabel(node, routeTitle(node.meta, t)),
      children,
      ...(scroll ? { className: SCROLL_CLASS, popupClassName: `${SCROLL_CLASS}-popup` } : {}),
    };
  });
}
