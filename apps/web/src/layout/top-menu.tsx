import { Menu } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { toMenuItems } from './menu-items';
import { useMenu } from './use-menu';

interface TopMenuProps {
  dark: boolean;
  /** 1 = the first level only (the comprehensive layout); the whole tree with pop-up groups by default. */
  depth?: number;
}

/** The menu across the header (horizontal and comprehensive layouts); overflow folds into "…". */
export function TopMenu({ dark, depth = Infinity }: TopMenuProps) {
  const { t } = useTranslation();
  const menu = useMenu();
  const items = useMemo(() => toMenuItems(menu.nodes, t, depth), [menu.nodes, t, depth]);
  const selected = depth === 1 ? menu.activeTop : menu.selected;
  return (
    <Menu
      mode="horizontal"
      theme={dark ? 'dark' : 'light'}
      items={items}
      selectedKeys={selected ? [selected] : []}
      onClick={({ key }) => menu.open(key)}
      className="cpc-top-menu"
      data-testid="top-menu"
      data-depth={depth === 1 ? 'first-level' : 'all'}
    />
  );
}
