import NProgress from 'nprogress';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation, useMatches, useNavigation } from 'react-router';
import { PROGRESS_SPEED, PROGRESS_TRICKLE, TITLE_KEY } from '../config/settings';
import { findRoute, routeTitle } from '../lib/menu-routes';
import { useSession } from '../lib/session';
import { OldBrowserNotice } from '../layout/header/old-browser-notice';
import { useLayoutSettings } from '../layout/layout-settings';

/** Static routes name their title here; the user's pages take theirs from the route records. */
export interface RouteHandle {
  title?: string;
}

NProgress.configure({ showSpinner: false, speed: PROGRESS_SPEED, trickleSpeed: PROGRESS_TRICKLE });

/** Title of the page at the current location (SPEC §2: set after each navigation), translated by `t`. */
function usePageTitle(t: (key: string) => string): string | undefined {
  const matches = useMatches();
  const { pathname } = useLocation();
  const routes = useSession((s) => s.routes);
  const fromHandle = [...matches].reverse().find((m) => (m.handle as RouteHandle | undefined)?.title);
  if (fromHandle) return t((fromHandle.handle as RouteHandle).title ?? '');
  const meta = findRoute(routes ?? [], pathname)?.meta;
  return meta ? routeTitle(meta, t) || undefined : undefined;
}

export function RootRoute() {
  const { t } = useTranslation();
  const title = usePageTitle(t);
  const navigation = useNavigation();

  useEffect(() => {
    document.title = title ? t('app.documentTitle', { page: title, title: t(TITLE_KEY) }) : t(TITLE_KEY);
  }, [title, t]);

  const showProgressBar = useLayoutSettings((s) => s.showProgressBar);

  useEffect(() => {
    if (navigation.state === 'idle') NProgress.done();
    else if (showProgressBar) NProgress.start();
  }, [navigation.state, showProgressBar]);

  return (
    <>
      <Outlet />
      <OldBrowserNotice />
    </>
  );
}
