import type { UserInfo } from '@cpc/contracts';
import { filterRoutes } from '@cpc/contracts/route';
import { redirect, type LoaderFunctionArgs } from 'react-router';
import {
  AUTHENTICATED_STATUS,
  AUTHENTICATE_PATH,
  HOME_PATH,
  LOGIN_PATH,
  MESSAGE_DURATION,
  RECORD_ROUTE,
  WHITE_LIST,
} from '../config/settings';
import { menuRedirect } from '../layout/keep-alive/resolve-page';
import { logError } from '../lib/error-log';
import { messageApi } from '../lib/feedback';
import { t } from '../lib/i18n';
import { normalizeRoutes } from '../lib/menu-routes';
import { accessOf, getToken, useSession } from '../lib/session';
import { fetchMenu, fetchUserInfo } from '../lib/session-api';
import { warmPage } from './warm-up';

const isUserInfo = (v: unknown): v is UserInfo =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as UserInfo).status === 'number' &&
  typeof (v as UserInfo).username === 'string';

function formatError(key: string, cause: unknown): Error {
  const error = new Error(t(key), { cause });
  messageApi().error({ content: error.message, duration: MESSAGE_DURATION / 1000 });
  logError(error);
  return error;
}

let loading: Promise<void> | null = null;

/** Loads the user and their menu, once however many navigations ask for it at the same time. */
export function loadSession(): Promise<void> {
  loading ??= (async () => {
    // both at once: the menu does not depend on the user's answer (one round trip less before the first page)
    const menuCall = fetchMenu();
    menuCall.catch(() => undefined);
    const info = await fetchUserInfo();
    if (!isUserInfo(info)) throw formatError('request.userInfoInvalid', info);
    const session = useSession.getState();
    session.setUserInfo({ ...info, roles: info.roles ?? [], permissions: info.permissions ?? [] });
    const menu = await menuCall;
    let routes;
    try {
      routes = normalizeRoutes(menu);
    } catch (error) {
      throw formatError('request.routesInvalid', error);
    }
    session.setRoutes(filterRoutes(routes, accessOf(useSession.getState().userInfo)));
  })().finally(() => {
    loading = null;
  });
  return loading;
}

/**
 * Reads the user's info (permissions) and menu again while the console stays open: their roles changed
 * (`event: permissions`). Buttons and the menu follow at once; a failure keeps what is shown (the request layer
 * has said why, and a signed-out session goes to the login page as on any call).
 */
export async function refreshSession(): Promise<void> {
  if (!getToken()) return;
  await loading?.catch(() => undefined);
  try {
    await loadSession();
  } catch {
    // keep the current menu and permissions; the next navigation or call tells the rest
  }
}

function loginRoute(intended: string): string {
  if (!RECORD_ROUTE || intended === HOME_PATH || intended.startsWith(LOGIN_PATH)) return LOGIN_PATH;
  return `${LOGIN_PATH}?redirect=${encodeURIComponent(intended)}`;
}

/** With the user and the menu loaded: where `pathname` goes instead, or null to let it open. */
function decide(pathname: string): string | null {
  if (pathname === LOGIN_PATH) return HOME_PATH;
  const info = useSession.getState().userInfo;
  if (info && info.status !== AUTHENTICATED_STATUS && pathname !== AUTHENTICATE_PATH) return AUTHENTICATE_PATH;
  // the menu's redirects (and /404 for unknown paths) happen here, inside this navigation: a redirect
  // rendered by the page would be a second navigation, able to overtake one the user made meanwhile
  return menuRedirect(useSession.getState().routes ?? [], pathname);
}

/** The guard's answer when it has all it needs; undefined while the user and the menu are still to load. */
function guardNow(pathname: string, search: string): string | null | undefined {
  if (!getToken()) return WHITE_LIST.includes(pathname) ? null : loginRoute(pathname + search);
  return useSession.getState().routes ? decide(pathname) : undefined;
}

/**
 * The route guard of SPEC §4. Returns where to go instead of `pathname`, or null to let it open.
 * Without a token only the white list opens (anything else, unknown paths included, goes to the login
 * page keeping the path: whether a path exists is only known from the user's menu); with a token, the
 * user and the menu are loaded first.
 */
export async function guard(pathname: string, search = ''): Promise<string | null> {
  const now = guardNow(pathname, search);
  if (now !== undefined) return now;
  try {
    await loadSession();
  } catch {
    useSession.getState().reset();
    return loginRoute(pathname + search);
  }
  return decide(pathname);
}

/**
 * Whether the guard has anything to do for a navigation to `url` (the root route's `shouldRevalidate`).
 * Most navigations — a tab switch, a menu click — open a page the loaded menu has: skipping the loader
 * then spares the router its "loading" state, a whole extra render of the console per navigation.
 */
export const guardActsOn = (url: URL): boolean => guardNow(url.pathname, url.search) !== null;

/** The guard as the root route's loader: it runs before every navigation (see `shouldRevalidate`). */
export async function guardLoader({ request }: LoaderFunctionArgs): Promise<null> {
  const url = new URL(request.url);
  const target = await guard(url.pathname, url.search);
  // the page this navigation ends on (a redirect's target is not guarded again) starts loading now
  const routes = useSession.getState().routes;
  if (routes && getToken()) {
    const landing = new URL(target ?? url.pathname + url.search, url);
    warmPage(routes, landing.pathname, landing.search);
  }
  if (target && target !== url.pathname + url.search) throw redirect(target);
  return null;
}
