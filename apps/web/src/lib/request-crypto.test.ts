import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MessageInstance } from 'antd/es/message/interface';
import type { PublicKeyResult } from '@cpc/contracts';
import { setMessageApi } from './feedback';
import { setNavigate } from './navigation';
import { get, http, post, resetPayloadCipher } from './request';
import { useSession } from './session';
import { envelope, fakeServer } from './testing/fake-server';

/**
 * How the request layer uses a payload cipher. The cipher itself (payload-crypto.ts) has its own tests;
 * here a transparent one (base64 JSON) makes what travels visible.
 */
vi.mock('./payload-crypto', () => ({
  createPayloadCipher: vi.fn(async (pk: PublicKeyResult) =>
    !pk.publicKey || pk.mockServer
      ? null
      : {
          scheme: 'modern',
          seal: vi.fn(async (body: unknown) => ({
            headers: { 'x-payload-crypto': 'modern', 'x-payload-key': 'wrapped-key' },
            body: body === undefined ? undefined : { payload: btoa(JSON.stringify(body)) },
            open: async (payload: string) => JSON.parse(atob(payload)),
          })),
        },
  ),
}));

const API = '/apiAdmin';
const sealed = (value: unknown) => ({ status: 200, body: { payload: btoa(JSON.stringify(value)) } });
const opened = (body: unknown) => JSON.parse(atob((body as { payload: string }).payload));

let server: ReturnType<typeof fakeServer>;

beforeEach(() => {
  resetPayloadCipher();
  useSession.getState().reset();
  useSession.getState().setToken('t');
  setNavigate(() => undefined);
  setMessageApi({ error: vi.fn(), loading: vi.fn(), destroy: vi.fn() } as unknown as MessageInstance);
  server = fakeServer(http).on(
    'GET',
    `${API}/publicKey`,
    envelope({ publicKey: 'PEM', mockServer: false, scheme: 'modern' }),
  );
});

afterEach(() => {
  server.restore();
  setNavigate(null);
  setMessageApi(null);
});

describe('payload encryption', () => {
  it('seals the body, sends the cipher headers and opens the sealed response', async () => {
    server.on('POST', `${API}/device/bind`, (call) =>
      sealed({ code: 200, msg: 'ok', data: { echo: opened(call.body) } }),
    );
    await expect(post('/device/bind', { sn: 'P1' })).resolves.toEqual({ echo: { sn: 'P1' } });
    const [call] = server.callsTo(`${API}/device/bind`);
    expect(call.headers['x-payload-crypto']).toBe('modern');
    expect(call.headers['x-payload-key']).toBe('wrapped-key');
    expect(Object.keys(call.body as object)).toEqual(['payload']);
  });

  it('asks for the public key once for many calls', async () => {
    server.on('GET', `${API}/a`, sealed({ code: 200, msg: 'ok', data: 1 }));
    await Promise.all([get('/a'), get('/a'), get('/a')]);
    expect(server.callsTo(`${API}/publicKey`)).toHaveLength(1);
  });

  it('handles a plain (unsealed) error answer, such as a crypto failure', async () => {
    server.on('POST', `${API}/x`, {
      status: 400,
      body: { code: 400, msg: 'payload could not be decrypted', data: null },
    });
    await expect(post('/x', { a: 1 })).rejects.toMatchObject({ code: 400, message: 'payload could not be decrypted' });
  });

  it.each(['/user/v1/login', '/user/login', '/socialLogin'])(
    'leaves the login call %s plain (login RSA is off)',
    async (url) => {
      server.on('POST', `${API}${url}`, (call) => envelope(call.body));
      await expect(post(url, { username: 'alice', password: 'secret1' }, { noToken: true })).resolves.toEqual({
        username: 'alice',
        password: 'secret1',
      });
      expect(server.callsTo(`${API}${url}`)[0].headers['x-payload-crypto']).toBeUndefined();
    },
  );

  it('re-seals a call replayed after a token refresh', async () => {
    server
      .on('GET', `${API}/refreshToken`, envelope({ token: 'fresh', expiresIn: 900 }))
      .on('POST', `${API}/y`, (call) =>
        call.headers.Authorization === 'Bearer fresh'
          ? sealed({ code: 200, msg: 'ok', data: opened(call.body) })
          : { status: 402, body: { code: 402, msg: 'token expired', data: null } },
      );
    await expect(post('/y', { n: 1 })).resolves.toEqual({ n: 1 });
    const calls = server.callsTo(`${API}/y`);
    expect(calls).toHaveLength(2);
    expect(calls.every((c) => c.headers['x-payload-crypto'] === 'modern')).toBe(true);
    expect(server.callsTo(`${API}/refreshToken`)[0].headers['x-payload-crypto']).toBeUndefined();
  });

  it('sends plain payloads when the server has no key or is in mock mode', async () => {
    server.on('GET', `${API}/publicKey`, envelope({ publicKey: '', mockServer: true, scheme: 'off' }));
    server.on('POST', `${API}/z`, (call) => envelope(call.body));
    await expect(post('/z', { plain: true })).resolves.toEqual({ plain: true });
    expect(server.callsTo(`${API}/z`)[0].headers['x-payload-crypto']).toBeUndefined();
  });
});
