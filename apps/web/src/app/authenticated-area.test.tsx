import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, waitFor, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import type { RouteRecord } from '@cpc/contracts';
import { menuRedirect, resolvePage } from '../layout/keep-alive/resolve-page';
import { normalizeRoutes } from '../lib/menu-routes';
import { setNavigate } from '../lib/navigation';
import { http, resetPayloadCipher } from '../lib/request';
import { useSession } from '../lib/session';
import { envelope, fakeServer } from '../lib/testing/fake-server';
import { emptyFleet, MENU, staff } from '../lib/testing/fixtures';
import { keptPageShown } from '../lib/testing/kept-pages';
import { AppProviders } from './providers';
import { createRoutes } from './routes';

/** What a path opens: the page's record name, or `→ target`. */
const opens = (routes: RouteRecord[], path: string): string => {
  const r = resolvePage(routes, path);
  return r.kind === 'page' ? r.record.name : `→ ${r.to}`;
};

describe('resolvePage', () => {
  const routes = normalizeRoutes(MENU);

  it.each([
    // the whole chain in one answer: / → /device → /device/index
    ['/', '→ /device/index'],
    ['/index', 'Index'],
    ['/person', '→ /person/info'],
    ['/person/info', 'PersonInfo'],
    ['/device', '→ /device/index'],
    ['/device/index', 'DeviceIndex'],
    ['/system', '→ /system/identity'],
    ['/system/identity', 'IdentityReview'],
    ['/error', '→ /error/403'],
    ['/error/403', 'Error403'],
    ['/no/such/page', '→ /404'],
    ['/device/index/more', '→ /404'],
  ])('%s opens %s', (path, expected) => {
    expect(opens(routes, path)).toBe(expected);
  });

  it('lands / on the first page when the menu has no root record', () => {
    expect(opens(normalizeRoutes(MENU.filter((r) => r.path !== '/')), '/')).toBe('→ /device/index');
  });

  it('ends a redirect loop, or a redirect to nowhere, on /404', () => {
    const looping = normalizeRoutes([
      { path: '/a', name: 'A', component: 'Layout', redirect: '/b', meta: { title: 'a' } },
      { path: '/b', name: 'B', component: 'Layout', redirect: '/a', meta: { title: 'b' } },
      { path: '/c', name: 'C', component: 'Layout', redirect: '/gone', meta: { title: 'c' } },
      { path: '/d', name: 'D', component: 'Layout', redirect: '/403', meta: { title: 'd' } },
    ]);
    expect(opens(looping, '/a')).toBe('→ /404');
    expect(opens(looping, '/c')).toBe('→ /404');
    // a public screen is a fine end
    expect(opens(looping, '/d')).toBe('→ /403');
  });

  it('passes the params of a page with a pattern', () => {
    const routes = normalizeRoutes([
      {
        path: '/order',
        name: 'O',
        component: 'Layout',
        meta: { title: 'o' },
        children: [{ path: 'detail/:id', name: 'Detail', component: 'x', meta: { title: 'd' } }],
      },
    ]);
    expect(resolvePage(routes, '/order/detail/42')).toMatchObject({ kind: 'page', params: { id: '42' } });
  });

  it('leaves the public screens to themselves', () => {
    expect(menuRedirect(routes, '/404')).toBeNull();
    expect(menuRedirect(routes, '/login')).toBeNull();
    expect(menuRedirect(routes, '/device/index')).toBeNull();
    expect(menuRedirect(routes, '/device')).toBe('/device/index');
  });
});

const API = '/apiAdmin';
let server: ReturnType<typeof fakeServer>;
// the first page's code is a lazy chunk that vitest transforms on first use: slow when the machine is busy
const SLOW = { timeout: 30_000 };

function open(path: string) {
  useSession.getState().setToken('t');
  server
    .on('GET', `${API}/user/v1/user/userInfo`, envelope(staff()))
    .on('GET', `${API}/admin/login/getMenu`, envelope(MENU));
  emptyFleet(server);
  const router = createMemoryRouter(createRoutes(), { initialEntries: [path] });
  setNavigate((to, options) => void router.navigate(to, options));
  render(
    <AppProviders>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { router, location: () => router.state.location.pathname + router.state.location.search };
}

const tabPaths = () => [...document.querySelectorAll('[data-tab-path]')].map((el) => el.getAttribute('data-tab-path'));
const tab = (path: string) => document.querySelector<HTMLElement>(`[data-tab-path="${path}"]`)!;
/** Waits until the page of `path` is on screen (its code is a lazy chunk). */
const shows = (path: string) =>
  waitFor(() => {
    const el = document.querySelector<HTMLElement>(`[data-page-path="${path}"]`);
    expect(keptPageShown(path) && el!.textContent).toBeTruthy();
  }, SLOW);
const pageShown = keptPageShown;

describe('the authenticated area', { timeout: 90_000 }, () => {
  beforeEach(async () => {
    server = fakeServer(http).on(
      'GET',
      `${API}/publicKey`,
      envelope({ publicKey: '', mockServer: true, scheme: 'off' }),
    );
    resetPayloadCipher();
    useSession.getState().reset();
  });

  afterEach(() => {
    cleanup();
    server.restore();
    setNavigate(null);
  });

  it('redirects inside the navigation: / shows /device/index without showing / or /device first', async () => {
    const { router, location } = open('/device/index');
    await shows('/device/index');
    const shown: string[] = [];
    const stop = router.subscribe((state) => state.navigation.state === 'idle' && shown.push(state.location.pathname));
    await act(() => router.navigate('/'));
    stop();
    expect(location()).toBe('/device/index');
    expect(shown).toEqual(['/device/index']);
  });

  it('lets a navigation the user makes as the redirect lands win over it', async () => {
    const { router, location } = open('/error/404');
    await shows('/error/404');
    // The moment the page area changes (the 404 page hides), after React has drawn it but before its
    // effects ran, the user goes elsewhere: a redirect still to come would take them away again.
    let fired = false;
    const observer = new MutationObserver(() => {
      if (fired || pageShown('/error/404') !== false) return;
      fired = true;
      void router.navigate('/error/403');
    });
    observer.observe(document.body, { attributes: true, subtree: true, attributeFilter: ['style', 'class', 'inert'] });
    // React schedules as in a browser here: act() would run the effects before the observer could act
    const actEnvironment = (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT;
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = false;
    try {
      void router.navigate('/');
      await shows('/error/403');
      // give a redirect still to come every chance to land
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      observer.disconnect();
      (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = actEnvironment;
    }
    expect(fired).toBe(true);
    expect(location()).toBe('/error/403');
  });

  it('turns visits into tabs, keeps the pages behind them and closes back to the last tab', async () => {
    const { router, location } = open('/device/index');
    await shows('/device/index');
    await waitFor(() => expect(tabPaths()).toEqual(['/index', '/device/index']));
    // the home tab is first and has no close button
    expect(within(tab('/index')).queryByRole('button')).toBeNull();

    await act(() => router.navigate('/error/403'));
    await shows('/error/403');
    await waitFor(() => expect(tabPaths()).toEqual(['/index', '/device/index', '/error/403']));
    expect(pageShown('/error/403')).toBe(true);
    // the devices page is kept, hidden
    expect(pageShown('/device/index')).toBe(false);
    expect(tab('/error/403').getAttribute('aria-selected')).toBe('true');

    // a tab click opens its page again
    await act(async () => fireEvent.click(tab('/device/index')));
    await waitFor(() => expect(location()).toBe('/device/index'));
    expect(pageShown('/device/index')).toBe(true);
    expect(pageShown('/error/403')).toBe(false);

    // closing the active tab goes to the last one left
    await act(() => router.navigate('/error/404'));
    await waitFor(() => expect(tabPaths()).toEqual(['/index', '/device/index', '/error/403', '/error/404']));
    await act(async () => fireEvent.click(within(tab('/error/404')).getByRole('button')));
    await waitFor(() => expect(location()).toBe('/error/403'));
    expect(tabPaths()).toEqual(['/index', '/device/index', '/error/403']);
    expect(pageShown('/error/404')).toBeNull();
    await waitFor(() => expect(document.title).toBe('403 - 云打印'));
  });
});
