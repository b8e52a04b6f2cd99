import { Menu, type MenuProps } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DEFAULT_OPENEDS, OPEN_FIRST_MENU, UNIQUE_OPENED } from '../config/settings';
import { toMenuItems } from './menu-items';
import { groupKeys, groupsOf, type MenuNode } from './menu-model';
import { useMenu } from './use-menu';

export function initialOpenKeys(nodes: MenuNode[], selected: string | undefined): string[] {
  const groups = new Set(groupKeys(nodes));
  const open = DEFAULT_OPENEDS.filter((k) => groups.has(k));
  const first = nodes.find((n) => n.children);
  if (OPEN_FIRST_MENU && first) open.push(first.key);
  if (selected) open.push(...groupsOf(nodes, selected));
  return [...new Set(open)];
}

interface SideMenuProps {
  /** Part of the tree to show (the comprehensive layout's and the second column's); the whole menu by default. */
  nodes?: MenuNode[];
  dark: boolean;
  /** Folded to icons: groups open as pop-ups on hover instead of inline. */
  collapsed?: boolean;
  onNavigate?: () => void;
}

/** The inline menu of the side bar, built from the user's route records (SPEC §2, §6, §9). */
export function SideMenu({ nodes: part, dark, collapsed = false, onNavigate }: SideMenuProps) {
  const { t } = useTranslation();
  const menu = useMenu();
  const nodes = part ?? menu.nodes;
  const { selected } = menu;
  const [openKeys, setOpenKeys] = useState(() => initialOpenKeys(nodes, selected));
  // the pop-ups of the folded menu are tracked apart, so unfolding brings back the groups that were open
  const [popupKeys, setPopupKeys] = useState<string[]>([]);

  // another part of the tree (or following a link into a closed group) opens what it should; the same
  // keys keep the same array, so a tab switch inside open groups does not draw the menu twice
  useEffect(() => {
    setOpenKeys((keys) => {
      const missing = initialOpenKeys(nodes, selected).filter((k) => !keys.includes(k));
      return missing.length ? [...keys, ...missing] : keys;
    });
  }, [nodes, selected]);

  const items = useMemo(() => toMenuItems(nodes, t), [nodes, t]);

  const onClick: MenuProps['onClick'] = ({ key }) => {
    setPopupKeys([]);
    menu.open(key);
    onNavigate?.();
  };

  const onOpenChange: MenuProps['onOpenChange'] = (keys) => {
    if (collapsed) return setPopupKeys(keys);
    if (!UNIQUE_OPENED) return setOpenKeys(keys);
    const opened = keys.find((k) => !openKeys.includes(k));
    setOpenKeys(opened ? [...groupsOf(nodes, opened), opened] : keys);
  };

  return (
    <Menu
      mode="inline"
      theme={dark ? 'dark' : 'light'}
      items={items}
      selectedKeys={selected ? [selected] : []}
      openKeys={collapsed ? popupKeys : openKeys}
      inlineCollapsed={collapsed}
      onOpenChange={onOpenChange}
      onClick={onClick}
      style={{ borderInlineEnd: 'none', background: 'transparent' }}
      data-testid="side-menu"
    />
  );
}
