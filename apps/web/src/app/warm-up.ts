import type { RouteRecord } from '@cpc/contracts';
import { loadDictionaries } from '../lib/i18n';
import { loadServerMessages } from '../lib/server-messages';
import { findRoute, isPage } from '../lib/menu-routes';

/** The page every sign-in lands on: the menu's `/` leads to my devices (the server's menu seed). */
const FIRST_PAGE = 'device/index';

let warming: Promise<unknown> | null = null;

export const WARM_MARK = 'cpc:warm-signed-in';

/**
 * Loads what the first signed-in screen is drawn with — the console's providers, the signed-in area with its
 * feedback holders, the first page, the area's strings and the server's messages — while the user is still on the sign-in page, so
 * that signing in waits for the user's data only. Once; a failed download is tried again by the next call
 * (and, failing that, by the screens themselves when they open).
 */
export function warmSignedIn(): Promise<unknown> {
  // for bench/shell.ts and the browser's performance panel: what the sign-in page loads from here on is this
  if (!warming) performance.mark(WARM_MARK);
  warming ??= Promise.all([
    import('./console-layout'),
    import('./authenticated-area'),
    import('./feedback-holders'),
    import('./route-components').then((m) => m.preloadPage(FIRST_PAGE)),
    loadDictionaries(),
    loadServerMessages(),
  ]).then(
    () => document.removeEventListener('focusin', onFocus),
    () => {
      warming = null;
    },
  );
  return warming;
}

function onFocus(event: FocusEvent): void {
  if ((event.target as Element | null)?.matches?.('input[type=password]')) void warmSignedIn();
}

/**
 * On a sign-in page: warms the signed-in screens once the page is drawn and the browser is idle, or at once
 * when the password field gets the focus, whichever comes first.
 */
export function warmSignedInSoon(): void {
  if (warming) return;
  document.addEventListener('focusin', onFocus);
  const idle = () => {
    if (typeof requestIdleCallback === 'function') requestIdleCallback(() => void warmSignedIn(), { timeout: 2000 });
    else setTimeout(() => void warmSignedIn(), 500);
  };
  if (document.readyState === 'complete') idle();
  else window.addEventListener('load', idle, { once: true });
}

/**
 * A navigation to `pathname` has been let through with the user's menu loaded (the guard's decision after a
 * sign-in or a reload): the page's code and first calls start now, beside the signed-in area's first render.
 */
export function warmPage(routes: RouteRecord[], pathname: string, search: string): void {
  const record = findRoute(routes, pathname);
  const component = record && isPage(record) ? record.component : undefined;
  if (!component) return;
  void import('./route-components').then((m) => m.prefetchPageData(component, search)).catch(() => undefined);
}
