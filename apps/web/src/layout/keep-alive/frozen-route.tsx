import { useMemo, type ContextType, type ReactNode } from 'react';
import { matchPath, NavigationType, parsePath, UNSAFE_LocationContext, UNSAFE_RouteContext } from 'react-router';

/**
 * A kept page's own router view: its location, its route match and params, fixed to `fullPath`. Under it
 * `useLocation`, `useParams`, `useSearchParams` and relative `useNavigate` read the page's own path
 * while another tab is on screen, and — unlike `useRoutes(…, fullPath)`, whose contexts are new objects at
 * every navigation — nothing in the page re-renders when the app's location moves elsewhere.
 */
export function FrozenRoute({
  pattern,
  fullPath,
  children,
}: {
  pattern: string;
  fullPath: string;
  children: ReactNode;
}) {
  const location = useMemo<ContextType<typeof UNSAFE_LocationContext>>(() => {
    const { pathname = '/', search = '', hash = '' } = parsePath(fullPath);
    return {
      location: { pathname, search, hash, state: null, key: `kept:${fullPath}`, mask: undefined },
      navigationType: NavigationType.Pop,
    };
  }, [fullPath]);

  const route = useMemo<ContextType<typeof UNSAFE_RouteContext>>(() => {
    const { pathname } = location.location;
    const match = matchPath({ path: pattern, end: true }, pathname) ?? { params: {}, pathname, pathnameBase: pathname };
    return {
      outlet: null,
      isDataRoute: false,
      matches: [
        {
          params: match.params,
          pathname: match.pathname,
          pathnameBase: match.pathnameBase,
          route: { id: `kept:${pattern}`, path: pattern },
        },
      ],
    };
  }, [pattern, location]);

  return (
    <UNSAFE_LocationContext value={location}>
      <UNSAFE_RouteContext value={route}>{children}</UNSAFE_RouteContext>
    </UNSAFE_LocationContext>
  );
}
