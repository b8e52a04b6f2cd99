import { create } from 'zustand';
import type { RouteMeta, RouteRecord } from '@cpc/contracts';
import { HOME_PATH, KEEP_ALIVE_MAX } from '../../config/settings';
import { findRoute, flattenRoutes, isExternal, isPage, matchRouteChain } from '../../lib/menu-routes';
import { onSessionReset } from '../../lib/session';

/** A visited page in the tab bar (SPEC §3). */
export interface VisitedTab {
  /** What makes two visits the same tab: the path, or the path and query for `dynamicNewTab` routes. */
  key: string;
  /** Path and query the tab opens. */
  fullPath: string;
  path: string;
  query: Record<string, string>;
  params: Record<string, string | undefined>;
  name: string;
  parentIcon?: string;
  meta: RouteMeta;
}

/** A navigation that opened one of the user's pages. */
export interface PageVisit {
  record: RouteRecord;
  pathname: string;
  /** `?a=1`, or '' */
  search: string;
  params: Record<string, string | undefined>;
  parentIcon?: string;
}

export type CloseAction = 'close' | 'closeOthers' | 'closeLeft' | 'closeRight' | 'closeAll';

export const tabKey = (meta: RouteMeta, pathname: string, search: string): string =>
  meta.dynamicNewTab ? pathname + search : pathname;

/** Whether a visit of this route keeps its page mounted while another tab is open. */
export const isKept = (meta: RouteMeta): boolean => !meta.tabHidden && !meta.noKeepAlive;

export const isClosable = (tab: VisitedTab): boolean => !tab.meta.noClosable;

export function tabOf(visit: PageVisit): VisitedTab {
  const { record, pathname, search, params, parentIcon } = visit;
  return {
    key: tabKey(record.meta, pathname, search),
    fullPath: pathname + search,
    path: pathname,
    query: Object.fromEntries(new URLSearchParams(search)),
    params,
    name: record.name,
    parentIcon,
    meta: record.meta,
  };
}

/** The visit of a record from the menu, with the icon of the group it sits in. */
export function visitOf(
  routes: RouteRecord[],
  record: RouteRecord,
  pathname: string,
  search = '',
  params: PageVisit['params'] = {},
): PageVisit {
  return { record, pathname, search, params, parentIcon: matchRouteChain(routes, pathname).at(-2)?.meta.icon };
}

/** Tabs that are there from the start and cannot be closed: the home dashboard first (SPEC §2). */
function affixTabs(routes: RouteRecord[]): VisitedTab[] {
  return flattenRoutes(routes)
    .filter((r) => isPage(r) && r.meta.noClosable && !r.meta.tabHidden && !isExternal(r.path) && !r.path.includes(':'))
    .map((r) => tabOf(visitOf(routes, r, r.path)));
}

interface TabsState {
  tabs: VisitedTab[];
  /** The tab key of the page on screen (also for pages without a tab). */
  activeKey: string | null;
  /** Keys of the pages kept mounted, least recently used first; at most KEEP_ALIVE_MAX (SPEC §9). */
  kept: string[];
  /** Bumped by a refresh: the page is mounted anew under a new identity. */
  versions: Record<string, number>;
  /** Puts the fixed tabs in front and drops tabs the user's routes no longer have. */
  syncRoutes(routes: RouteRecord[]): void;
  visit(visit: PageVisit): void;
  /** Closes tabs around `key` (the active tab by default); returns where to go if the active one closed. */
  close(action: CloseAction, key?: string): string | null;
  refresh(key: string): void;
  reset(): void;
}

const EMPTY = {
  tabs: [] as VisitedTab[],
  activeKey: null,
  kept: [] as string[],
  versions: {} as Record<string, number>,
};

function closing(tabs: VisitedTab[], action: CloseAction, key: string | null): Set<string> {
  const index = tabs.findIndex((t) => t.key === key);
  const closable = tabs.filter(isClosable);
  switch (action) {
    case 'close':
      return new Set(closable.filter((t) => t.key === key).map((t) => t.key));
    case 'closeOthers':
      return new Set(closable.filter((t) => t.key !== key).map((t) => t.key));
    case 'closeLeft':
      return new Set(
        index < 0
          ? []
          : tabs
              .slice(0, index)
              .filter(isClosable)
              .map((t) => t.key),
      );
    case 'closeRight':
      return new Set(
        index < 0
          ? []
          : tabs
              .slice(index + 1)
              .filter(isClosable)
              .map((t) => t.key),
      );
    case 'closeAll':
      return new Set(closable.map((t) => t.key));
  }
}

export const useTabs = create<TabsState>()((set, get) => ({
  ...EMPTY,

  syncRoutes(routes) {
    set((s) => {
      const fixed = affixTabs(routes).map((tab) => s.tabs.find((t) => t.key === tab.key) ?? tab);
      const fixedKeys = new Set(fixed.map((t) => t.key));
      const rest = s.tabs.filter((t) => !fixedKeys.has(t.key) && findRoute(routes, t.path)?.name === t.name);
      const tabs = [...fixed, ...rest];
      const open = new Set(tabs.map((t) => t.key));
      return { tabs, kept: s.kept.filter((k) => open.has(k)) };
    });
  },

  visit(visit) {
    const tab = tabOf(visit);
    const { meta } = visit.record;
    set((s) => {
      let tabs = s.tabs;
      if (!meta.tabHidden) {
        const existing = tabs.find((t) => t.key === tab.key);
        if (!existing) tabs = [...tabs, tab];
        // one tab per path: a new query updates it
        else if (existing.fullPath !== tab.fullPath)
          tabs = tabs.map((t) =>
            t === existing ? { ...existing, fullPath: tab.fullPath, query: tab.query, params: tab.params } : t,
          );
      }
      let kept = s.kept;
      if (isKept(meta) && kept.at(-1) !== tab.key) {
        kept = [...kept.filter((k) => k !== tab.key), tab.key];
        if (kept.length > KEEP_ALIVE_MAX) kept = kept.slice(kept.length - KEEP_ALIVE_MAX);
      }
      if (tabs === s.tabs && kept === s.kept && s.activeKey === tab.key) return s;
      return { tabs, kept, activeKey: tab.key };
    });
  },

  close(action, key) {
    const s = get();
    const target = key ?? s.activeKey;
    const closed = closing(s.tabs, action, target);
    if (!closed.size) return null;
    const tabs = s.tabs.filter((t) => !closed.has(t.key));
    const versions = { ...s.versions };
    for (const k of closed) delete versions[k];
    set({ tabs, kept: s.kept.filter((k) => !closed.has(k)), versions });
    // SPEC §2: closing the active tab moves to the last remaining tab, or home when none is left
    return s.activeKey && closed.has(s.activeKey) ? (tabs.at(-1)?.fullPath ?? HOME_PATH) : null;
  },

  refresh(key) {
    set((s) => ({ versions: { ...s.versions, [key]: (s.versions[key] ?? 0) + 1 } }));
  },

  reset() {
    set(EMPTY);
  },
}));

// visited tabs belong to the user who opened them (SPEC §4: logout clears them)
onSessionReset(() => useTabs.getState().reset());
