import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MessageInstance } from 'antd/es/message/interface';
import { setMessageApi } from '../lib/feedback';
import { setLanguage } from '../lib/i18n';
import { setNavigate } from '../lib/navigation';
import { http, resetPayloadCipher } from '../lib/request';
import { useSession } from '../lib/session';
import { envelope, failure, fakeServer } from '../lib/testing/fake-server';
import { customer, MENU, staff } from '../lib/testing/fixtures';
import { guard } from './guard';

const API = '/apiAdmin';
let server: ReturnType<typeof fakeServer>;
const messages = { error: vi.fn(), loading: vi.fn(), destroy: vi.fn() };

function serve(info = customer(), menu: unknown = MENU) {
  server
    .on('GET', `${API}/user/v1/user/userInfo`, envelope(info))
    .on('GET', `${API}/admin/login/getMenu`, envelope(menu));
}

beforeEach(async () => {
  await setLanguage('en');
  server = fakeServer(http).on('GET', `${API}/publicKey`, envelope({ publicKey: '', mockServer: true, scheme: 'off' }));
  resetPayloadCipher();
  setNavigate(() => undefined);
  messages.error.mockClear();
  setMessageApi(messages as unknown as MessageInstance);
  useSession.getState().reset();
});

afterEach(() => {
  server.restore();
  setNavigate(null);
  setMessageApi(null);
});

describe('without a token', () => {
  it.each([
    '/login',
    '/login88121',
    '/register',
    '/callback',
    '/404',
    '/403',
    '/account/register',
    '/account/authenticate',
  ])('opens the whitelisted %s', async (path) => {
    await expect(guard(path)).resolves.toBeNull();
  });

  it('sends anything else to the login page, keeping the intended path', async () => {
    await expect(guard('/device/index', '?tab=2')).resolves.toBe('/login?redirect=%2Fdevice%2Findex%3Ftab%3D2');
    await expect(guard('/system/identity')).resolves.toBe('/login?redirect=%2Fsystem%2Fidentity');
    // whether a path exists is only known from the menu, after the login
    await expect(guard('/no/such/page')).resolves.toBe('/login?redirect=%2Fno%2Fsuch%2Fpage');
    await expect(guard('/')).resolves.toBe('/login');
    expect(server.calls.filter((c) => c.url !== `${API}/publicKey`)).toHaveLength(0);
  });
});

describe('with a token', () => {
  beforeEach(() => useSession.getState().setToken('t'));

  it('loads the user and the menu once, even for concurrent navigations, then lets the page open', async () => {
    serve();
    await expect(Promise.all([guard('/device/index'), guard('/device/index')])).resolves.toEqual([null, null]);
    expect(server.callsTo(`${API}/user/v1/user/userInfo`)).toHaveLength(1);
    expect(server.callsTo(`${API}/admin/login/getMenu`)).toHaveLength(1);
    const { userInfo, routes, username } = useSession.getState();
    expect(userInfo?.attest_name).toBe('ACME Ltd');
    expect(username).toBe('acme');
    // absolute paths, and what the user may not open is gone
    expect(routes?.map((r) => r.path)).toEqual(['/', '/person', '/device']);
    expect(routes?.[2].children?.[0].path).toBe('/device/index');

    await guard('/device/index');
    expect(server.callsTo(`${API}/user/v1/user/userInfo`)).toHaveLength(1);
  });

  it('keeps the staff-only groups for an admin', async () => {
    serve(staff());
    await guard('/system/identity');
    expect(useSession.getState().routes?.map((r) => r.path)).toEqual(['/', '/person', '/device', '/system', '/error']);
  });

  it('sends /login to the home page', async () => {
    serve();
    await expect(guard('/login')).resolves.toBe('/');
  });

  it('sends an unauthenticated tenant to /account/authenticate from every other page', async () => {
    serve(customer({ status: 2 }));
    await expect(guard('/device/index')).resolves.toBe('/account/authenticate');
    await expect(guard('/404')).resolves.toBe('/account/authenticate');
    await expect(guard('/account/authenticate')).resolves.toBeNull();
  });

  it('resets everything and goes to login when the user cannot be loaded', async () => {
    server.on('GET', `${API}/user/v1/user/userInfo`, failure(500, 'server error'));
    await expect(guard('/device/index')).resolves.toBe('/login?redirect=%2Fdevice%2Findex');
    expect(useSession.getState().token).toBe('');
    expect(useSession.getState().userInfo).toBeNull();
  });

  it('rejects a malformed user info', async () => {
    serve({ nonsense: true } as never);
    await expect(guard('/device/index')).resolves.toBe('/login?redirect=%2Fdevice%2Findex');
    expect(messages.error).toHaveBeenCalledWith(
      expect.objectContaining({ content: 'Core interface abnormal: check the returned JSON format' }),
    );
  });

  it('rejects a malformed menu', async () => {
    serve(customer(), { not: 'a list' });
    await expect(guard('/device/index')).resolves.toBe('/login?redirect=%2Fdevice%2Findex');
    expect(messages.error).toHaveBeenCalledWith(
      expect.objectContaining({ content: 'The route format was returned incorrectly' }),
    );
    expect(useSession.getState().token).toBe('');
    expect(useSession.getState().routes).toBeNull();
  });
});
