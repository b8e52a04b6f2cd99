import { useMemo } from 'react';
import { Navigate, useRoutes, type RouteObject } from 'react-router';
import type { RouteRecord } from '@cpc/contracts';
import { HOME_PATH, NOT_FOUND_PATH } from '../config/settings';
import { MainLayout } from '../layout/main-layout';
import { PageLoading } from '../layout/page-loading';
import { flattenRoutes, isExternal, isPage, landingPath } from '../lib/menu-routes';
import { useSession } from '../lib/session';
import { pageComponent } from './route-components';

const landingOrSelf = (record: RouteRecord): string | undefined =>
  isExternal(record.path) || record.meta.hidden ? undefined : isPage(record) ? record.path : landingPath(record);

/**
 * The user's pages from their route records: a page for every record with a component, a redirect for
 * every group, and /404 for anything else. Flat, because the one layout is the only nesting there is.
 */
export function toRouteObjects(routes: RouteRecord[]): RouteObject[] {
  const objects: RouteObject[] = [];
  for (const record of flattenRoutes(routes)) {
    if (isExternal(record.path)) continue;
    const target = record.redirect ?? (isPage(record) ? undefined : landingPath(record));
    if (target && target !== record.path) {
      objects.push({ path: record.path, element: <Navigate to={target} replace /> });
    } else if (isPage(record)) {
      const Page = pageComponent(record.component!);
      objects.push({ path: record.path, element: <Page /> });
    }
  }
  // the guard sends a fresh login to '/': a menu without a root record still needs somewhere to land
  if (!objects.some((o) => o.path === HOME_PATH)) {
    const first = routes.map(landingOrSelf).find((path): path is string => !!path);
    objects.push({ path: HOME_PATH, element: <Navigate to={first ?? NOT_FOUND_PATH} replace /> });
  }
  objects.push({ path: '*', element: <Navigate to={NOT_FOUND_PATH} replace /> });
  return objects;
}

/** Everything behind the login: the main layout around the page the location names. */
export default function AuthenticatedArea() {
  const routes = useSession((s) => s.routes);
  const objects = useMemo(() => toRouteObjects(routes ?? []), [routes]);
  const page = useRoutes(objects);
  // between a logout and the redirect to the login page there is nothing to show
  if (!routes) return <PageLoading fullscreen />;
  return <MainLayout>{page}</MainLayout>;
}
