import { memo, useEffect, useMemo } from 'react';
import { Navigate, useLocation, useRoutes } from 'react-router';
import type { RouteRecord } from '@cpc/contracts';
import { KeepAlive, type KeptPage } from '../layout/keep-alive/keep-alive';
import { resolvePage } from '../layout/keep-alive/resolve-page';
import { MainLayout } from '../layout/main-layout';
import { PageLoading } from '../layout/page-loading';
import { TabsBar } from '../layout/tabs/tabs-bar';
import { tabKey, useTabs, visitOf } from '../layout/tabs/tabs-store';
import { findRoute } from '../lib/menu-routes';
import { useSession } from '../lib/session';
import { pageComponent } from './route-components';

interface PageAtProps {
  /** The record's path pattern (`/workOrder/detail/:id`). */
  pattern: string;
  component: string;
  fullPath: string;
}

/**
 * A page under its own location: a kept page goes on reading its own path, query and params while
 * another tab is on screen, instead of the current location's.
 */
const PageAt = memo(function PageAt({ pattern, component, fullPath }: PageAtProps) {
  const Page = pageComponent(component);
  return useRoutes([{ path: pattern, element: <Page /> }], fullPath);
});

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
function Area({ routes }: { routes: RouteRecord[] }) {
  const { pathname, search } = useLocation();
  const resolution = useMemo(() => resolvePage(routes, pathname), [routes, pathname]);
  const page = resolution.kind === 'page' ? resolution : null;
  const activeKey = page ? tabKey(page.record.meta, pathname, search) : null;
  const tabs = useTabs((s) => s.tabs);
  const kept = useTabs((s) => s.kept);
  const versions = useTabs((s) => s.versions);

  useEffect(() => useTabs.getState().syncRoutes(routes), [routes]);

  useEffect(() => {
    if (page) useTabs.getState().visit(visitOf(routes, page.record, pathname, search, page.params));
  }, [routes, page, pathname, search]);

  const pages = useMemo<KeptPage[]>(() => {
    // the order of the tabs, which only changes when tabs open or close: kept pages never move in the DOM
    const keep = new Set(kept);
    const entries: Entry[] = [];
    for (const tab of tabs) {
      if (tab.key === activeKey && page) entries.push({ key: tab.key, fullPath: pathname + search, record: page.record });
      else if (keep.has(tab.key)) {
        const record = findRoute(routes, tab.path);
        if (record?.component) entries.push({ key: tab.key, fullPath: tab.fullPath, record });
      }
    }
    // a page without a tab yet (first render of a visit) or without one at all (tabHidden)
    if (page && activeKey && !entries.some((e) => e.key === activeKey)) entries.push({ key: activeKey, fullPath: pathname + search, record: page.record });
    return entries.map(({ key, fullPath, record }) => ({
      id: `${key}#${versions[key] ?? 0}`,
      fullPath,
      active: key === activeKey,
      element: <PageAt pattern={record.path} component={record.component!} fullPath={fullPath} />,
    }));
  }, [tabs, kept, versions, activeKey, page, pathname, search, routes]);

  return (
    <MainLayout tabs={<TabsBar />}>
      <KeepAlive pages={pages} />
      {resolution.kind === 'redirect' && <Navigate to={resolution.to} replace />}
    </MainLayout>
  );
}

/** Everything behind the login: the main layout with the tab bar around the user's pages. */
export default function AuthenticatedArea() {
  const routes = useSession((s) => s.routes);
  // between a logout and the redirect to the login page there is nothing to show
  if (!routes) return <PageLoading fullscreen />;
  return <Area routes={routes} />;
}
