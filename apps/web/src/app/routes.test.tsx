import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { setLanguage } from '../lib/i18n';
import { setNavigate } from '../lib/navigation';
import { http, resetPayloadCipher } from '../lib/request';
import { useSession } from '../lib/session';
import { envelope, fakeServer } from '../lib/testing/fake-server';
import { customer, emptyFleet, MENU, staff } from '../lib/testing/fixtures';
import { AppProviders } from './providers';
import { createRoutes } from './routes';

/** The whole console in jsdom: real router, guard, request layer and layout against a fake back end. */

const API = '/apiAdmin';
let server: ReturnType<typeof fakeServer>;

beforeEach(async () => {
  await setLanguage('en');
  server = fakeServer(http).on('GET', `${API}/publicKey`, envelope({ publicKey: '', mockServer: true, scheme: 'off' }));
  resetPayloadCipher();
  useSession.getState().reset();
});

afterEach(() => {
  cleanup();
  server.restore();
  setNavigate(null);
});

function signedIn(info = customer()) {
  useSession.getState().setToken('t');
  server
    .on('GET', `${API}/user/v1/user/userInfo`, envelope(info))
    .on('GET', `${API}/admin/login/getMenu`, envelope(MENU))
    .on('GET', `${API}/logout`, envelope(null));
  emptyFleet(server);
}

/** Lazy chunks are transformed on first use, which can take a while in a cold test run. */
const SLOW = { timeout: 30_000 };

function open(path: string) {
  const router = createMemoryRouter(createRoutes(), { initialEntries: [path] });
  setNavigate((to, options) => void router.navigate(to, options));
  render(
    <AppProviders>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  const location = () => router.state.location.pathname + router.state.location.search;
  return { router, location };
}

describe('signed out', { timeout: 90_000 }, () => {
  it('sends a protected page to the login page with the intended path', async () => {
    const { location } = open('/device/index');
    // the login screen's code loads before the navigation commits; the first load transforms it
    await waitFor(() => expect(location()).toBe('/login?redirect=%2Fdevice%2Findex'), SLOW);
    // the router's state moves first; the screen (and its title) renders after, later still on a busy machine
    await waitFor(() => expect(document.title).toBe('Log in - cloud printing'), SLOW);
  });

  it('sends an unknown path to the login page first: only the menu knows what exists', async () => {
    const { location } = open('/no/such/page');
    await waitFor(() => expect(location()).toBe('/login?redirect=%2Fno%2Fsuch%2Fpage'), SLOW);
  });

  it('opens the public 404 page', async () => {
    open('/404');
    expect(await screen.findByText('Sorry, the page you are looking for does not exist.', {}, SLOW)).toBeTruthy();
    await waitFor(() => expect(document.title).toBe('404 - cloud printing'));
  });
});

describe('signed in', { timeout: 90_000 }, () => {
  it('goes from / through the menu redirects to my devices, inside the layout', async () => {
    signedIn();
    const { location } = open('/');
    await waitFor(() => expect(location()).toBe('/device/index'), SLOW);
    expect(
      await screen.findByText('No devices yet: choose "Bind a device" to add the first one', {}, SLOW),
    ).toBeTruthy();
    // menu item, breadcrumb and card title
    expect(screen.getAllByText('My devices').length).toBeGreaterThanOrEqual(2);
    expect(screen.getByText('Devices')).toBeTruthy();
    expect(screen.getByText(`Copyright © ${new Date().getFullYear()} cloud printing`)).toBeTruthy();
    await waitFor(() => expect(document.title).toBe('My devices - cloud printing'));
    expect(server.callsTo(`${API}/user/v1/user/userInfo`)).toHaveLength(1);
    expect(server.callsTo(`${API}/admin/login/getMenu`)).toHaveLength(1);
  });

  it('sends /login home', async () => {
    signedIn();
    const { location } = open('/login');
    await waitFor(() => expect(location()).toBe('/device/index'), SLOW);
  });

  it('sends an unknown path to /404', async () => {
    signedIn();
    const { location } = open('/no/such/page');
    await waitFor(() => expect(location()).toBe('/404'), SLOW);
  });

  it('does not open the staff pages for a customer', async () => {
    signedIn();
    const { location } = open('/error/403');
    await waitFor(() => expect(location()).toBe('/404'), SLOW);
  });

  it('opens the staff error pages inside the layout for an admin', async () => {
    signedIn(staff());
    const { location } = open('/error/403');
    expect(await screen.findByText('Sorry, you are not allowed to open this page.', {}, SLOW)).toBeTruthy();
    expect(location()).toBe('/error/403');
    // the menu group and the breadcrumb
    expect(screen.getAllByText('Error pages')).toHaveLength(2);
  });

  it('holds an unauthenticated tenant on /account/authenticate', async () => {
    signedIn(customer({ status: 3 }));
    const { location } = open('/device/index');
    await waitFor(() => expect(location()).toBe('/account/authenticate'), SLOW);
  });

  it('logs out from the avatar menu', async () => {
    signedIn();
    const { location } = open('/device/index');
    fireEvent.click(await screen.findByTestId('avatar-menu', {}, SLOW));
    const logout = await screen.findByText('Log out');
    await act(async () => fireEvent.click(logout));
    await waitFor(() => expect(location()).toMatch(/^\/login/), SLOW);
    expect(server.callsTo(`${API}/logout`)).toHaveLength(1);
    expect(useSession.getState().token).toBe('');
    expect(useSession.getState().routes).toBeNull();
  });

  it('switches the language of the shell', async () => {
    signedIn();
    open('/device/index');
    const zh = await screen.findByText('中文', {}, SLOW);
    await act(async () => fireEvent.click(zh));
    expect(await screen.findByText('还没有设备，点击“绑定设备”添加第一台')).toBeTruthy();
    await waitFor(() => expect(document.title).toBe('我的设备 - 云打印'));
  });
});
