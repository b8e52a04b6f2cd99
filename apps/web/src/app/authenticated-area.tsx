import { memo, useEffect, useLayoutEffect, useMemo } from 'react';
import { Navigate, useLocation } from 'react-router';
import type { RouteRecord } from '@cpc/contracts';
import { FrozenRoute } from '../layout/keep-alive/frozen-route';
import { KeepAlive, WARM_PAGES, type KeptPage } from '../layout/keep-alive/keep-alive';
import { resolvePage } from '../layout/keep-alive/resolve-page';
import { MainLayout } from '../layout/main-layout';
import { PageLoading } from '../layout/page-loading';
import { TabsBar } from '../layout/tabs/tabs-bar';
import { tabKey, useTabs, visitOf } from '../layout/tabs/tabs-store';
import { findRoute } from '../lib/menu-routes';
import { useLiveEvents } from '../lib/live-events';
import { useSession } from '../lib/session';
import { refreshSession } from './guard';
import { pageComponent } from './route-components';

interface PageAtProps {
  /** The record's path pattern (`/workOrder/detail/:id`). */
  pattern: string;
  component: string;
  fullPath: string;
}

/**
 * A page under its own location: a kept page goes on reading its own path, query and params while
 * another tab is on screen, instead of the current location's, and is not rendered again when it moves.
 */
const PageAt = memo(function PageAt({ pattern, component, fullPath }: PageAtProps) {
  const Page = pageComponent(component);
  return (
    <FrozenRoute pattern={pattern} fullPath={fullPath}>
      <Page />
    </FrozenRoute>
  );
});

/** The tab bar never changes with the location: one element for good, so the area's renders skip it. */
const TABS = <TabsBar />;

interface Entry {
  key: string;
  fullPath: string;
  record: RouteRecord;
}

/**
 * The user's pages, each opened from its route record: the page at the location, and the pages of the
 * open tabs kept mounted behind it (SPEC §2 tabs, §9 keep-alive). Redirects and unknown paths are the
 * guard's (one redirect inside the navigation); a redirect still met here (the menu changed under an
 * open location) is followed from inside the layout so the kept pages survive it.
 */
function AreaPages({ routes }: { routes: RouteRecord[] }) {
  const { pathname, search } = useLocation();
  const resolution = useMemo(() => resolvePage(routes, pathname), [routes, pathname]);
  const page = resolution.kind === 'page' ? resolution : null;
  const activeKey = page ? tabKey(page.record.meta, pathname, search) : null;
  const tabs = useTabs((s) => s.tabs);
  const kept = useTabs((s) => s.kept);
  const versions = useTabs((s) => s.versions);

  useEffect(() => useTabs.getState().syncRoutes(routes), [routes]);

  // before the frame is drawn: the tab bar lights up the new tab in the same frame as its page shows
  useLayoutEffect(() => {
    if (page) useTabs.getState().visit(visitOf(routes, page.record, pathname, search, page.params));
  }, [routes, page, pathname, search]);

  const pages = useMemo<KeptPage[]>(() => {
    // the order of the tabs, which only changes when tabs open or close: kept pages never move in the DOM
    const keep = new Set(kept);
    const entries: Entry[] = [];
    for (const tab of tabs) {
      if (tab.key === activeKey && page)
        entries.push({ key: tab.key, fullPath: pathname + search, record: page.record });
      else if (keep.has(tab.key)) {
        const record = findRoute(routes, tab.path);
        if (record?.component) entries.push({ key: tab.key, fullPath: tab.fullPath, record });
      }
    }
    // a page without a tab yet (first render of a visit) or without one at all (tabHidden)
    if (page && activeKey && !entries.some((e) => e.key === activeKey))
      entries.push({ key: activeKey, fullPath: pathname + search, record: page.record });
    // the pages used last (least recently used first in `kept`) stay live behind the active one
    const warm = new Set(kept.slice(-(WARM_PAGES + 1)));
    return entries.map(({ key, fullPath, record }) => ({
      id: `${key}#${versions[key] ?? 0}`,
      fullPath,
      active: key === activeKey,
      warm: warm.has(key),
      element: <PageAt pattern={record.path} component={record.component!} fullPath={fullPath} />,
    }));
  }, [tabs, kept, versions, activeKey, page, pathname, search, routes]);

  return (
    <>
      <KeepAlive pages={pages} />
      {resolution.kind === 'redirect' && <Navigate to={resolution.to} replace />}
    </>
  );
}

/**
 * The layout around the pages. Only the pages (and the parts of the layout that show where the user is)
 * follow the location: the router draws this anew at every navigation, the memo stops it here.
 */
const Area = memo(function Area({ routes }: { routes: RouteRecord[] }) {
  return (
    <MainLayout tabs={TABS}>
      <AreaPages routes={routes} />
    </MainLayout>
  );
});

/** Everything behind the login: the main layout with the tab bar around the user's pages. */
export default function AuthenticatedArea() {
  const routes = useSession((s) => s.routes);
  // a role of this user changed: its permissions and menu are read again, the buttons and the menu follow
  useLiveEvents({ permissions: () => void refreshSession() }, !!routes);
  // between a logout and the redirect to the login page there is nothing to show
  if (!routes) return <PageLoading fullscreen />;
  return <Area routes={routes} />;
}
