import { useCallback, useMemo } from 'react';
import { useLocation } from 'react-router';
import type { RouteRecord } from '@cpc/contracts';
import { useAccess, useSession } from '../lib/session';
import { useLiveCounts } from '../lib/menu-live';
import {
  buildMenu,
  findNode,
  landingKey,
  selectedKey,
  topKeyOf,
  usesLiveSource,
  withLiveCounts,
  type MenuNode,
} from './menu-model';
import { useStableNavigate } from './use-stable-navigate';

const NO_ROUTES: RouteRecord[] = [];

export interface MenuState {
  nodes: MenuNode[];
  /** The item the current page lights up. */
  selected?: string;
  /** The first-level item that holds it. */
  activeTop?: string;
  /** Follows a menu item: an external link in its window (SPEC §3 `target`), else its page. */
  open(key: string): void;
}

/** The one menu model behind the side, top and column menus (SPEC §2, §6). */
export function useMenu(): MenuState {
  const navigate = useStableNavigate();
  const { pathname } = useLocation();
  const routes = useSession((s) => s.routes) ?? NO_ROUTES;
  const access = useAccess();
  // badges and dots that show a live number (unread messages) are counted only when the menu has one
  const counts = useLiveCounts(useMemo(() => usesLiveSource(routes), [routes]));
  const nodes = useMemo(() => withLiveCounts(buildMenu(routes, access), counts), [routes, access, counts]);
  const selected = useMemo(() => selectedKey(nodes, routes, pathname), [nodes, routes, pathname]);
  const activeTop = useMemo(() => (selected ? topKeyOf(nodes, selected) : undefined), [nodes, selected]);

  const open = useCallback(
    (key: string) => {
      const node = findNode(nodes, key);
      if (!node) return;
      if (node.external) {
        if (node.meta.target === '_self') window.location.href = node.key;
        else window.open(node.key, '_blank', 'noopener,noreferrer');
        return;
      }
      const to = landingKey(node);
      if (to) navigate(to);
    },
    [nodes, navigate],
  );

  return useMemo(() => ({ nodes, selected, activeTop, open }), [nodes, selected, activeTop, open]);
}
