import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MessageInstance } from 'antd/es/message/interface';
import { TOKEN_KEY } from '../config/settings';
import { useErrorLog } from './error-log';
import { setMessageApi } from './feedback';
import { setLanguage } from './i18n';
import { setNavigate } from './navigation';
import { get, http, post, request, RequestError, resetPayloadCipher, uploadFile } from './request';
import { useSession } from './session';
import { deferred, envelope, failure, fakeServer, type FakeCall } from './testing/fake-server';
import { customer, staff } from './testing/fixtures';

const API = '/apiAdmin';

let server: ReturnType<typeof fakeServer>;
let navigations: string[];
const messages = { error: vi.fn(), loading: vi.fn(), destroy: vi.fn() };

function signIn(token = 'old-token') {
  useSession.getState().setToken(token);
}

const bearer = (call: FakeCall) => call.headers.Authorization;

beforeEach(async () => {
  await setLanguage('en');
  server = fakeServer(http).on('GET', `${API}/publicKey`, envelope({ publicKey: '', mockServer: true, scheme: 'off' }));
  resetPayloadCipher();
  navigations = [];
  setNavigate((to) => navigations.push(to));
  Object.values(messages).forEach((fn) => fn.mockClear());
  setMessageApi(messages as unknown as MessageInstance);
  useSession.getState().reset();
  useErrorLog.getState().clear();
  window.location.hash = '#/device';
});

afterEach(() => {
  server.restore();
  setNavigate(null);
  setMessageApi(null);
});

describe('success', () => {
  it.each([0, '0', 200, '200'])('treats code %j as success and returns data', async (code) => {
    server.on('GET', `${API}/thing`, { status: 200, body: { code, msg: 'ok', data: { id: 7 } } });
    await expect(get('/thing')).resolves.toEqual({ id: 7 });
    expect(messages.error).not.toHaveBeenCalled();
  });

  it('returns the whole body when it has no data field', async () => {
    server.on('POST', `${API}/list`, { body: { code: 200, msg: 'ok', list: [1, 2], total: 2 } });
    await expect(post('/list')).resolves.toEqual({ code: 200, msg: 'ok', list: [1, 2], total: 2 });
  });

  it('returns data even when it is null', async () => {
    server.on('GET', `${API}/logout`, envelope(null));
    await expect(get('/logout')).resolves.toBeNull();
  });

  it('reads the code from the HTTP status when the body has none', async () => {
    server.on('GET', `${API}/plain`, { status: 200, body: { hello: 'world' } });
    await expect(get('/plain')).resolves.toEqual({ hello: 'world' });
  });

  it('defaults to POST with a JSON body, the base path and the 100 s timeout', async () => {
    server.on('POST', `${API}/echo`, (call) => envelope(call.body));
    await expect(request({ url: '/echo', data: { a: 1 } })).resolves.toEqual({ a: 1 });
    const [call] = server.callsTo(`${API}/echo`);
    expect(call.method).toBe('POST');
    expect(call.timeout).toBe(100000);
    expect(call.headers['Content-Type']).toMatch(/^application\/json/);
  });
});

describe('language', () => {
  it('asks the server for its messages in the console language', async () => {
    server.on('GET', `${API}/lang`, (call) => envelope(call.headers['Accept-Language']));
    await expect(get('/lang')).resolves.toBe('en');
    await setLanguage('zh');
    await expect(get('/lang')).resolves.toBe('zh-CN');
    await setLanguage('en');
  });
});

describe('token', () => {
  it('sends the Bearer token', async () => {
    signIn('abc');
    server.on('GET', `${API}/me`, (call) => envelope(bearer(call)));
    await expect(get('/me')).resolves.toBe('Bearer abc');
  });

  it('sends none with noToken', async () => {
    signIn('abc');
    server.on('GET', `${API}/captcha`, (call) => envelope(bearer(call) ?? 'none'));
    await expect(request({ url: '/captcha', method: 'get', noToken: true })).resolves.toBe('none');
  });
});

describe('form bodies', () => {
  it('serialises with URLSearchParams as x-www-form-urlencoded', async () => {
    server.on('POST', `${API}/form`, (call) => envelope({ body: call.body, type: call.headers['Content-Type'] }));
    const result = await request<{ body: string; type: string }>({
      url: '/form',
      form: true,
      data: { name: 'a b', tags: [1, 2], empty: null, amp: 'x&y' },
    });
    expect(result.type).toMatch(/^application\/x-www-form-urlencoded/);
    expect(result.body).toBe('name=a+b&tags=1&tags=2&amp=x%26y');
    expect(Object.fromEntries(new URLSearchParams(result.body))).toMatchObject({ name: 'a b', amp: 'x&y' });
  });
});

describe('session end: 401, 501, 201', () => {
  it.each([401, 501, 201])('code %i resets the session and goes to /login', async (code) => {
    signIn();
    useSession.getState().setRoutes([]);
    server.on('GET', `${API}/device/list`, failure(code, 'login expired'));
    const error = await get('/device/list').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestError);
    expect((error as RequestError).code).toBe(code);
    expect(useSession.getState().token).toBe('');
    expect(useSession.getState().routes).toBeNull();
    expect(sessionStorage.getItem(TOKEN_KEY)).toBeNull();
    expect(navigations).toEqual(['/login']);
    expect(messages.error).toHaveBeenCalledWith(expect.objectContaining({ content: 'login expired', duration: 3 }));
  });

  it('also when the code is only in the body of an HTTP 200', async () => {
    signIn();
    server.on('GET', `${API}/x`, { status: 200, body: { code: '401', msg: '', data: null } });
    await expect(get('/x')).rejects.toBeInstanceOf(RequestError);
    expect(useSession.getState().token).toBe('');
    expect(navigations).toEqual(['/login']);
  });

  it('stays on a login page, where the 401 answers the form (wrong password)', async () => {
    window.location.hash = '#/login88121?redirect=%2Fdevice';
    server.on('POST', `${API}/user/v1/login`, failure(401, 'wrong user name or password'));
    await expect(post('/user/v1/login', { username: 'u', password: 'p' }, { noToken: true })).rejects.toMatchObject({
      code: 401,
      message: 'wrong user name or password',
    });
    expect(navigations).toEqual([]);
  });
});

describe('403', () => {
  it('goes to /403 and keeps the session', async () => {
    signIn();
    server.on('POST', `${API}/system/identity/approve`, failure(403, 'permission identity:review required'));
    await expect(post('/system/identity/approve', { id: 1 })).rejects.toMatchObject({ code: 403 });
    expect(navigations).toEqual(['/403']);
    expect(useSession.getState().token).toBe('old-token');
  });
});

describe('402: one refresh for all', () => {
  it('refreshes once while three calls wait, then replays all three with the new token', async () => {
    signIn('old-token');
    const release = deferred();
    server
      .on('GET', `${API}/refreshToken`, async () => {
        await release.promise;
        return envelope({ token: 'new-token', expiresIn: 900 });
      })
      .on('GET', `${API}/item`, (call) =>
        bearer(call) === 'Bearer new-token' ? envelope({ id: call.params?.id }) : failure(402, 'token expired'),
      );

    const pending = Promise.all([1, 2, 3].map((id) => get('/item', { id })));
    // let all three reach their 402 before the refresh answers
    await vi.waitFor(() => expect(server.callsTo(`${API}/item`)).toHaveLength(3));
    release.resolve();

    await expect(pending).resolves.toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    const refreshes = server.callsTo(`${API}/refreshToken`);
    expect(refreshes).toHaveLength(1);
    expect(refreshes[0].withCredentials).toBe(true);
    const items = server.callsTo(`${API}/item`);
    expect(items.map(bearer)).toEqual([
      'Bearer old-token',
      'Bearer old-token',
      'Bearer old-token',
      'Bearer new-token',
      'Bearer new-token',
      'Bearer new-token',
    ]);
    expect(useSession.getState().token).toBe('new-token');
    expect(sessionStorage.getItem(TOKEN_KEY)).toBe('new-token');
    expect(messages.error).not.toHaveBeenCalled();
    expect(navigations).toEqual([]);
  });

  it('lets a call started during the refresh wait for it instead of sending the stale token', async () => {
    signIn('old-token');
    const release = deferred();
    server
      .on('GET', `${API}/refreshToken`, async () => {
        await release.promise;
        return envelope({ token: 'new-token', expiresIn: 900 });
      })
      .on('GET', `${API}/a`, (call) => (bearer(call) === 'Bearer new-token' ? envelope('a') : failure(402)));
    const first = get('/a');
    await vi.waitFor(() => expect(server.callsTo(`${API}/refreshToken`)).toHaveLength(1));
    const late = get('/a');
    release.resolve();
    await expect(Promise.all([first, late])).resolves.toEqual(['a', 'a']);
    expect(server.callsTo(`${API}/a`).map(bearer)).toEqual([
      'Bearer old-token',
      'Bearer new-token',
      'Bearer new-token',
    ]);
    expect(server.callsTo(`${API}/refreshToken`)).toHaveLength(1);
  });

  it('when the refresh fails: every waiting call rejects, the session is reset, /login', async () => {
    signIn('old-token');
    useSession.getState().setRoutes([]);
    server
      .on('GET', `${API}/refreshToken`, failure(401, 'login expired, please log in again'))
      .on('GET', `${API}/item`, failure(402, 'token expired'));
    const results = await Promise.allSettled([1, 2, 3].map((id) => get('/item', { id })));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(server.callsTo(`${API}/refreshToken`)).toHaveLength(1);
    expect(server.callsTo(`${API}/item`)).toHaveLength(3);
    expect(useSession.getState().token).toBe('');
    expect(useSession.getState().routes).toBeNull();
    expect(navigations.at(-1)).toBe('/login');
    expect(messages.error).toHaveBeenCalledWith(
      expect.objectContaining({ content: 'login expired, please log in again' }),
    );
  });

  it('does not loop when the replay answers 402 again', async () => {
    signIn('old-token');
    server
      .on('GET', `${API}/refreshToken`, envelope({ token: 'new-token', expiresIn: 900 }))
      .on('GET', `${API}/stuck`, failure(402, 'token expired'));
    await expect(get('/stuck')).rejects.toMatchObject({ code: 402 });
    expect(server.callsTo(`${API}/stuck`)).toHaveLength(2);
    expect(server.callsTo(`${API}/refreshToken`)).toHaveLength(1);
  });
});

describe('error messages', () => {
  const shown = () => messages.error.mock.calls.at(-1)?.[0]?.content;

  it('shows the server message first', async () => {
    server.on('GET', `${API}/e`, failure(400, 'mobile: must be 11 digits starting with 1'));
    await expect(get('/e')).rejects.toMatchObject({ message: 'mobile: must be 11 digits starting with 1' });
    expect(shown()).toBe('mobile: must be 11 digits starting with 1');
  });

  it('else the default text of the code, in the current language', async () => {
    server.on('GET', `${API}/e`, failure(404, ''));
    await expect(get('/e')).rejects.toBeInstanceOf(RequestError);
    expect(shown()).toBe('The resource does not exist');
    await setLanguage('zh');
    await expect(get('/e')).rejects.toBeInstanceOf(RequestError);
    expect(shown()).toBe('访问的资源不存在');
  });

  it('else the HTTP status text', async () => {
    server.on('GET', `${API}/e`, { status: 418, statusText: "I'm a teapot", body: { code: 418, msg: '' } });
    await expect(get('/e')).rejects.toBeInstanceOf(RequestError);
    expect(shown()).toBe("I'm a teapot");
  });

  it('else a generic text naming the code', async () => {
    server.on('GET', `${API}/e`, { status: 418, body: 'teapot' });
    await expect(get('/e')).rejects.toMatchObject({ code: 418 });
    expect(shown()).toBe('Request failed (418)');
  });

  it('explains a missing response (server down, CORS, timeout)', async () => {
    server.on('GET', `${API}/e`, { networkError: true });
    const error = (await get('/e').catch((e: unknown) => e)) as RequestError;
    expect(error.code).toBeNull();
    expect(shown()).toBe(
      'Connecting to the back-end failed (possibly CORS, a wrong address or a timeout). Please contact the administrator.',
    );
  });

  it('keeps the field errors of a 400 on the rejection', async () => {
    const fields = [{ field: 'mobile', message: 'must be 11 digits starting with 1' }];
    server.on('POST', `${API}/register`, { status: 400, body: { code: 400, msg: 'mobile: bad', data: { fields } } });
    await expect(post('/register', {}, { noToken: true })).rejects.toMatchObject({ status: 400, data: { fields } });
  });

  it('shows nothing for a silent call, which still rejects and is logged', async () => {
    useSession.getState().setUserInfo(staff());
    server.on('GET', `${API}/e`, failure(500, 'boom'));
    await expect(get('/e', undefined, { silent: true })).rejects.toMatchObject({ code: 500 });
    expect(messages.error).not.toHaveBeenCalled();
    expect(useErrorLog.getState().logs).toHaveLength(1);
  });

  it('logs an unexpected failure with the route it happened on', async () => {
    useSession.getState().setUserInfo(staff());
    window.location.hash = '#/system/identity?page=2';
    server.on('GET', `${API}/e`, failure(500, 'server error'));
    await expect(get('/e')).rejects.toBeInstanceOf(RequestError);
    expect(useErrorLog.getState().logs).toEqual([
      expect.objectContaining({
        err: { message: 'server error', stack: expect.any(String) },
        url: '/system/identity?page=2',
      }),
    ]);
  });
});

describe('the error log keeps unexpected failures only', () => {
  it('does not log answers the page expects (4xx): a wrong captcha, a wrong bind key', async () => {
    useSession.getState().setUserInfo(staff());
    for (const status of [400, 401, 403, 404, 429]) {
      server.on('POST', `${API}/e${status}`, failure(status, `said ${status}`));
      await expect(post(`/e${status}`, {}, { noToken: true })).rejects.toMatchObject({ status });
    }
    expect(useErrorLog.getState().logs).toEqual([]);
    // the 401 signed the user out
    useSession.getState().setUserInfo(staff());
    server.on('GET', `${API}/boom`, failure(503, 'down'));
    await expect(get('/boom')).rejects.toMatchObject({ status: 503 });
    expect(useErrorLog.getState().logs).toHaveLength(1);
  });

  it("sends a customer's unexpected failure to the server's log instead of the panel", async () => {
    signIn('tok');
    useSession.getState().setUserInfo(customer());
    server.on('POST', `${API}/system/clientError`, envelope({ logged: true }));
    server.on('GET', `${API}/boom`, failure(500, 'server error'));
    await expect(get('/boom')).rejects.toMatchObject({ status: 500 });
    expect(useErrorLog.getState().logs).toEqual([]);
    await vi.waitFor(() => expect(server.callsTo(`${API}/system/clientError`)).toHaveLength(1));
    const [report] = server.callsTo(`${API}/system/clientError`);
    expect(bearer(report)).toBe('Bearer tok');
    expect(report.body).toMatchObject({ message: 'server error', url: '/device' });
  });

  it('does not report a failing report (no loop), nor a 4xx of a customer', async () => {
    signIn('tok');
    useSession.getState().setUserInfo(customer());
    server.on('POST', `${API}/system/clientError`, failure(500, 'also down'));
    server.on('POST', `${API}/bind`, failure(400, 'bind key is wrong'));
    await expect(post('/bind', {})).rejects.toMatchObject({ status: 400 });
    expect(server.callsTo(`${API}/system/clientError`)).toHaveLength(0);
    server.on('GET', `${API}/boom`, failure(500, 'server error'));
    await expect(get('/boom')).rejects.toMatchObject({ status: 500 });
    await vi.waitFor(() => expect(server.callsTo(`${API}/system/clientError`)).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 20));
    expect(server.callsTo(`${API}/system/clientError`)).toHaveLength(1);
    expect(messages.error).toHaveBeenCalledTimes(2);
  });
});

describe('global loading indicator', () => {
  it('shows while a departmentEdit call is in flight, once for concurrent calls', async () => {
    const release = deferred();
    server.on('POST', `${API}/system/departmentEdit`, async () => {
      await release.promise;
      return envelope(true);
    });
    const calls = [post('/system/departmentEdit', { id: 1 }), post('/system/departmentEdit', { id: 2 })];
    await vi.waitFor(() => expect(server.callsTo(`${API}/system/departmentEdit`)).toHaveLength(2));
    expect(messages.loading).toHaveBeenCalledTimes(1);
    expect(messages.loading).toHaveBeenCalledWith(expect.objectContaining({ key: 'request-loading', duration: 0 }));
    expect(messages.destroy).not.toHaveBeenCalled();
    release.resolve();
    await Promise.all(calls);
    expect(messages.destroy).toHaveBeenCalledWith('request-loading');
  });

  it('does not show for other calls', async () => {
    server.on('POST', `${API}/system/departmentList`, envelope([]));
    await post('/system/departmentList');
    expect(messages.loading).not.toHaveBeenCalled();
  });

  it('goes away when the call fails', async () => {
    server.on('POST', `${API}/departmentEdit`, failure(500));
    await expect(post('/departmentEdit')).rejects.toBeInstanceOf(RequestError);
    expect(messages.destroy).toHaveBeenCalledWith('request-loading');
  });
});

describe('uploadFile', () => {
  it('asks for an upload token, then posts the file to the returned site-relative URL', async () => {
    signIn('abc');
    server
      .on('GET', `${API}/user/v1/user/getQnToken`, (call) =>
        envelope({
          token: `upload-for-${call.params?.bucket}`,
          uploadUrl: '/apiAdmin/upload',
          maxSize: 10,
          accept: [],
          expiresIn: 600,
        }),
      )
      .on('POST', `${API}/upload`, (call) => {
        call.request.onUploadProgress?.({ loaded: 50, total: 100 });
        call.request.onUploadProgress?.({ loaded: 100, total: 100 });
        const form = call.body as FormData;
        return envelope({
          key: `20250101/abc/${(form.get('file') as File).name}`,
          url: '/apiAdmin/objects/x',
          size: 3,
          mime: 'image/png',
        });
      });
    const progress: number[] = [];
    const result = await uploadFile(new File(['png'], 'photo.png', { type: 'image/png' }), (p) => progress.push(p));

    expect(result).toEqual({ key: '20250101/abc/photo.png', url: '/apiAdmin/objects/x' });
    expect(progress).toEqual([50, 100]);
    const [upload] = server.callsTo(`${API}/upload`);
    expect(upload.timeout).toBe(1800000);
    expect(upload.body).toBeInstanceOf(FormData);
    expect((upload.body as FormData).get('token')).toBe('upload-for-permanentfile');
    expect(upload.headers.Authorization).toBeUndefined();
  });
});
