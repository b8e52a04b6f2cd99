import { Badge, Menu, type MenuProps } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import type { RouteRecord } from '@cpc/contracts';
import { DEFAULT_OPENEDS, OPEN_FIRST_MENU, UNIQUE_OPENED } from '../config/settings';
import { isDarkMenu } from '../config/theme';
import { useAccess, useSession } from '../lib/session';
import { useLayoutSettings } from './layout-settings';
import { MenuIcon } from './menu-icon';
import { buildMenu, groupKeys, groupsOf, selectedKey, type MenuNode } from './menu-model';

type Item = NonNullable<MenuProps['items']>[number];

const NO_ROUTES: RouteRecord[] = [];

function label(node: MenuNode, title: string) {
  if (node.meta.badge !== undefined && node.meta.badge !== '') {
    return (
      <span>
        {title} <Badge count={node.meta.badge} size="small" style={{ boxShadow: 'none' }} />
      </span>
    );
  }
  if (node.meta.dot) {
    return (
      <Badge dot offset={[6, 0]}>
        <span style={{ color: 'inherit' }}>{title}</span>
      </Badge>
    );
  }
  return title;
}

function initialOpenKeys(nodes: MenuNode[], selected: string | undefined): string[] {
  const groups = new Set(groupKeys(nodes));
  const open = DEFAULT_OPENEDS.filter((k) => groups.has(k));
  const first = nodes.find((n) => n.children);
  if (OPEN_FIRST_MENU && first) open.push(first.key);
  if (selected) open.push(...groupsOf(nodes, selected));
  return [...new Set(open)];
}

/** The side menu built from the user's route records (SPEC §2, §6). */
export function SideMenu({ onNavigate }: { onNavigate?: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const routes = useSession((s) => s.routes) ?? NO_ROUTES;
  const access = useAccess();
  const themeName = useLayoutSettings((s) => s.themeName);

  const nodes = useMemo(() => buildMenu(routes, access), [routes, access]);
  const selected = selectedKey(nodes, routes, pathname);
  const [openKeys, setOpenKeys] = useState(() => initialOpenKeys(nodes, selected));

  // following a link into a closed group opens it
  useEffect(() => {
    if (selected) setOpenKeys((keys) => [...new Set([...keys, ...groupsOf(nodes, selected)])]);
  }, [nodes, selected]);

  const byKey = useMemo(() => {
    const map = new Map<string, MenuNode>();
    const walk = (list: MenuNode[]) => list.forEach((n) => (map.set(n.key, n), walk(n.children ?? [])));
    walk(nodes);
    return map;
  }, [nodes]);

  const items = useMemo(() => {
    const toItems = (list: MenuNode[]): Item[] =>
      list.map((node) => ({
        key: node.key,
        icon: <MenuIcon name={node.meta.icon} />,
        label: label(node, t(node.meta.title)),
        children: node.children ? toItems(node.children) : undefined,
      }));
    return toItems(nodes);
  }, [nodes, t]);

  const onClick: MenuProps['onClick'] = ({ key }) => {
    const node = byKey.get(key);
    if (node?.external) {
      if (node.meta.target === '_self') window.location.href = key;
      else window.open(key, '_blank', 'noopener,noreferrer');
      return;
    }
    navigate(key);
    onNavigate?.();
  };

  const onOpenChange: MenuProps['onOpenChange'] = (keys) => {
    if (!UNIQUE_OPENED) return setOpenKeys(keys);
    const opened = keys.find((k) => !openKeys.includes(k));
    setOpenKeys(opened ? [...groupsOf(nodes, opened), opened] : keys);
  };

  return (
    <Menu
      mode="inline"
      theme={isDarkMenu(themeName) ? 'dark' : 'light'}
      items={items}
      selectedKeys={selected ? [selected] : []}
      openKeys={openKeys}
      onOpenChange={onOpenChange}
      onClick={onClick}
      style={{ borderInlineEnd: 'none' }}
    />
  );
}
