import type { PublicKeyResult, UploadResult, UploadTokenResult } from '@cpc/contracts';
import {
  BASE_URL,
  CODE_FIELD,
  CONTENT_TYPE_FORM,
  CONTENT_TYPE_JSON,
  FORBIDDEN_PATH,
  LOADING_URL_MARKERS,
  LOGIN_PATH,
  MESSAGE_DURATION,
  MESSAGE_FIELD,
  PLAIN_URLS,
  REQUEST_TIMEOUT,
  SUCCESS_CODES,
  TOKEN_FIELD,
  UPLOAD_BUCKET,
  UPLOAD_TIMEOUT,
} from '../config/settings';
import { trackCall } from './call-progress';
import { encodeParams, http, NoResponseError, type HttpResponse, type UploadProgress } from './http';
import { currentRouteUrl, logError, setErrorReporter } from './error-log';
import { messageApi } from './feedback';
import { getLanguage, i18n, t } from './i18n';
import { navigateTo } from './navigation';
import { createPayloadCipher, type PayloadCipher } from './payload-crypto';
import { getToken, useSession } from './session';

/** One call of the console API (SPEC §7). */
export interface RequestConfig {
  url: string;
  /** Defaults to 'post', as the generic call method of SPEC §7. */
  method?: Method;
  /** The body; ignored for GET (use `params`). */
  data?: unknown;
  params?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Send no Authorization header (public calls: login, captcha, …). */
  noToken?: boolean;
  timeout?: number;
  onUploadProgress?: (event: UploadProgress) => void;
  /** Send `data` as application/x-www-form-urlencoded instead of JSON. */
  form?: boolean;
  /** Show no error message (the call still rejects and redirects as usual; an unexpected failure is logged). */
  silent?: boolean;
  /** A background call whose failure is nobody's business: no message, no log, no redirect. */
  quiet?: boolean;
}

/** What a failed call rejects with. */
export class RequestError extends Error {
  override name = 'RequestError';
  constructor(
    message: string,
    /** Code from the body, else the HTTP status; null when no response arrived. */
    readonly code: number | string | null,
    /** HTTP status; null when no response arrived. */
    readonly status: number | null,
    /** The envelope's `data` (e.g. `{ fields }` of a 400). */
    readonly data: unknown = null,
    /** The whole response body. */
    readonly envelope: unknown = null,
    readonly url = '',
  ) {
    super(message);
  }
}

export type Method =
  'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';

/** The transport (fetch; XHR for uploads). Every HTTP status resolves: the envelope's code decides. */
export { http };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// ---------------------------------------------------------------------------------------------------------------
// envelope

function codeOf(response: HttpResponse): number | string {
  const body = response.data;
  const code = isRecord(body) ? body[CODE_FIELD] : undefined;
  return typeof code === 'number' || (typeof code === 'string' && code !== '') ? code : response.status;
}

const isSuccess = (code: number | string | null): boolean => code !== null && SUCCESS_CODES.includes(code);

const unwrap = (body: unknown): unknown => (isRecord(body) && 'data' in body ? body.data : body);

/** SPEC §8: the server's message, else the default text of the code, else the status text. */
function messageFor(response: HttpResponse, code: number | string): string {
  const body = response.data;
  const msg = isRecord(body) ? body[MESSAGE_FIELD] : undefined;
  if (typeof msg === 'string' && msg.trim()) return msg;
  const key = `request.code.${code}`;
  if (i18n.exists(key)) return t(key);
  if (response.statusText) return response.statusText;
  return t('request.unknown', { code });
}

function errorFromResponse(response: HttpResponse, code: number | string, url: string): RequestError {
  const body = response.data;
  return new RequestError(messageFor(response, code), code, response.status, unwrap(body), body, url);
}

function errorFromThrown(error: unknown, url: string): RequestError {
  if (error instanceof RequestError) return error;
  if (error instanceof NoResponseError) return new RequestError(t('request.noResponse'), null, null, null, null, url);
  const message = error instanceof Error ? error.message : String(error);
  const failed = new RequestError(message, null, null, null, null, url);
  if (error instanceof Error) failed.stack = error.stack;
  return failed;
}

// ---------------------------------------------------------------------------------------------------------------
// failures: redirects, message, error log

/** Pages whose own form answers a 401 (wrong password): staying there keeps what the user typed. */
const LOGIN_PAGES = ['/login', '/login88121', '/register', '/account/register'];

const routePath = () => currentRouteUrl().split('?')[0];

function expireSession(): void {
  useSession.getState().reset();
  if (!LOGIN_PAGES.includes(routePath())) navigateTo(LOGIN_PATH, { replace: true });
}

// calls cut off by a reload or a navigation away fail without a response: that is no fault to log
let leaving = false;
if (typeof window !== 'undefined') {
  window.addEventListener('pagehide', () => (leaving = true));
  window.addEventListener('beforeunload', () => (leaving = true));
  window.addEventListener('pageshow', () => (leaving = false));
}

/**
 * What the error log is for (SPEC §8): the server failing (5xx) or not answering. A 4xx is an answer the
 * page expected and shows (a wrong captcha, a wrong bind key), not a fault.
 */
export function isUnexpected(error: RequestError): boolean {
  if (error.status === null && error.code === null) return !leaving;
  const code = Number(error.code);
  return (error.status ?? 0) >= 500 || (Number.isFinite(code) && code >= 500);
}

function fail(config: RequestConfig, error: RequestError, sessionExpired = false): RequestError {
  if (config.quiet) return error;
  const code = error.code === null ? null : Number(error.code);
  if (sessionExpired || code === 401 || code === 501 || code === 201) expireSession();
  else if (code === 403) navigateTo(FORBIDDEN_PATH);
  if (!config.silent) {
    // keyed by its text so the same failure of concurrent calls shows once
    messageApi().error({ content: error.message, key: `request:${error.message}`, duration: MESSAGE_DURATION / 1000 });
  }
  if (isUnexpected(error)) logError(error);
  return error;
}

// ---------------------------------------------------------------------------------------------------------------
// token refresh (402)

let refreshing: Promise<string> | null = null;

class SessionExpiredError extends RequestError {}

async function fetchFreshToken(): Promise<string> {
  let response: HttpResponse;
  try {
    // the refresh credential is an httpOnly cookie: only the browser can send it
    response = await http.request({
      method: 'GET',
      url: `${BASE_URL}/refreshToken`,
      headers: {},
      timeout: REQUEST_TIMEOUT,
      withCredentials: true,
    });
  } catch (error) {
    const failed = errorFromThrown(error, '/refreshToken');
    throw new SessionExpiredError(failed.message, failed.code, failed.status, null, null, failed.url);
  }
  const code = codeOf(response);
  const data = unwrap(response.data);
  const token = isRecord(data) ? data[TOKEN_FIELD] : undefined;
  if (!isSuccess(code) || typeof token !== 'string' || !token) {
    const failed = errorFromResponse(response, isSuccess(code) ? 401 : code, '/refreshToken');
    throw new SessionExpiredError(failed.message, failed.code, failed.status, failed.data, failed.envelope, failed.url);
  }
  useSession.getState().setToken(token);
  return token;
}

/**
 * One refresh for any number of calls answered 402: they all wait for the same exchange. A call whose
 * 402 arrives after the token was already replaced just uses the new one.
 */
function freshToken(staleToken: string): Promise<string> {
  const current = getToken();
  if (current && current !== staleToken && !refreshing) return Promise.resolve(current);
  refreshing ??= fetchFreshToken().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

// ---------------------------------------------------------------------------------------------------------------
// payload encryption (SPEC §7)

let cipher: Promise<PayloadCipher | null> | null = null;

async function loadCipher(): Promise<PayloadCipher | null> {
  const response = await http.request({
    method: 'GET',
    url: `${BASE_URL}/publicKey`,
    headers: {},
    timeout: REQUEST_TIMEOUT,
  });
  // a server without the key endpoint (or refusing it) takes plain payloads
  if (!isSuccess(codeOf(response))) return null;
  const key = unwrap(response.data) as PublicKeyResult | null;
  if (!key || !key.publicKey || key.mockServer) return null;
  return createPayloadCipher(key);
}

/**
 * Asked once and remembered. Only an unreachable server is asked again by the next call; until then
 * that call goes out plain (and most likely fails the same way).
 */
function payloadCipher(): Promise<PayloadCipher | null> {
  cipher ??= loadCipher().catch((error: unknown) => {
    if (error instanceof NoResponseError) cipher = null;
    else logError(error);
    return null;
  });
  return cipher;
}

/** Forgets the public key, e.g. after the server rotated it. */
export function resetPayloadCipher(): void {
  cipher = null;
}

const pathOf = (url: string): string => {
  const path = url.split('?')[0].replace(/^https?:\/\/[^/]+/i, '');
  return path.startsWith(`${BASE_URL}/`) ? path.slice(BASE_URL.length) : path;
};

const isMultipart = (data: unknown): boolean => typeof FormData !== 'undefined' && data instanceof FormData;

const wantsEncryption = (config: RequestConfig): boolean =>
  !PLAIN_URLS.includes(pathOf(config.url)) && !isMultipart(config.data);

const isSealedBody = (v: unknown): v is { payload: string } =>
  isRecord(v) && typeof v.payload === 'string' && Object.keys(v).length === 1;

// ---------------------------------------------------------------------------------------------------------------
// one attempt

/** A form-encoded body, written as a query string is (SPEC §7: form-encoded bodies are serialised). */
const formBody = (data: unknown): string =>
  typeof data === 'string' ? data : isRecord(data) ? encodeParams(data) : '';

/** Site-relative URLs that already carry the base (an upload URL handed out by the server) skip it. */
const baseFor = (url: string): string =>
  /^https?:\/\//i.test(url) || url === BASE_URL || url.startsWith(`${BASE_URL}/`) ? '' : BASE_URL;

async function send(config: RequestConfig, token: string): Promise<HttpResponse> {
  const method = (config.method ?? 'post').toUpperCase();
  const hasBody = method !== 'GET' && method !== 'HEAD';
  // the server says its messages in the console's language (SPEC §1: zh by default)
  const headers: Record<string, string> = {
    'Accept-Language': getLanguage() === 'zh' ? 'zh-CN' : 'en',
    ...config.headers,
  };
  if (!config.noToken && token) headers.Authorization = `Bearer ${token}`;

  let data = hasBody ? config.data : undefined;
  let open: ((payload: string) => Promise<unknown>) | undefined;
  const sealer = wantsEncryption(config) ? await payloadCipher() : null;
  if (sealer) {
    const sealed = await sealer.seal(data);
    Object.assign(headers, sealed.headers);
    data = sealed.body;
    open = sealed.open;
  }
  let body: string | FormData | undefined;
  // a multipart body gets its content type, with the boundary, from the browser
  if (isMultipart(data)) body = data as FormData;
  else if (config.form && data !== undefined && !sealer) {
    headers['Content-Type'] = CONTENT_TYPE_FORM;
    body = formBody(data);
  } else if (data !== undefined) {
    headers['Content-Type'] ??= CONTENT_TYPE_JSON;
    body = typeof data === 'string' ? data : JSON.stringify(data);
  }

  const response = await http.request({
    method,
    url: baseFor(config.url) + config.url,
    params: config.params,
    headers,
    body,
    timeout: config.timeout ?? REQUEST_TIMEOUT,
    onUploadProgress: config.onUploadProgress,
  });
  if (open && isSealedBody(response.data)) response.data = await open(response.data.payload);
  return response;
}

// ---------------------------------------------------------------------------------------------------------------
// the global loading indicator

const LOADING_KEY = 'request-loading';
let loadingCalls = 0;

const showsLoading = (url: string): boolean => LOADING_URL_MARKERS.some((marker) => url.includes(marker));

function startLoading(): void {
  if (loadingCalls++ === 0) messageApi().loading({ content: t('request.loading'), key: LOADING_KEY, duration: 0 });
}

function stopLoading(): void {
  if (--loadingCalls === 0) messageApi().destroy(LOADING_KEY);
}

// ---------------------------------------------------------------------------------------------------------------
// public API

async function execute<T>(config: RequestConfig): Promise<T> {
  let token = getToken();
  // a call started while a refresh is in flight waits for the new token instead of earning its own 402
  if (refreshing && !config.noToken) {
    try {
      token = await refreshing;
    } catch (error) {
      throw fail(config, errorFromThrown(error, config.url), true);
    }
  }

  let response: HttpResponse;
  try {
    response = await send(config, token);
  } catch (error) {
    throw fail(config, errorFromThrown(error, config.url));
  }
  let code = codeOf(response);

  if (Number(code) === 402 && !config.noToken) {
    try {
      token = await freshToken(token);
      response = await send(config, token);
    } catch (error) {
      throw fail(config, errorFromThrown(error, config.url), error instanceof SessionExpiredError);
    }
    code = codeOf(response);
  }

  if (isSuccess(code)) return unwrap(response.data) as T;
  throw fail(config, errorFromResponse(response, code, config.url));
}

/**
 * Calls the console API: Bearer token, optional payload encryption, one shared token refresh on 402,
 * and SPEC §8's handling of every failure (message, redirect, error log). Resolves with the envelope's
 * `data` (or the whole body when it has none); rejects with a `RequestError`.
 */
export async function request<T = unknown>(config: RequestConfig): Promise<T> {
  const loading = showsLoading(config.url);
  if (loading) startLoading();
  try {
    return await trackCall(execute<T>(config));
  } finally {
    if (loading) stopLoading();
  }
}

// a customer's unexpected errors go to the server's log (staff read theirs in the panel)
setErrorReporter((report) => {
  request({ url: '/system/clientError', method: 'post', data: report, quiet: true }).catch(() => {});
});

type ShortcutConfig = Omit<RequestConfig, 'url' | 'method' | 'params' | 'data'>;

export const get = <T = unknown>(url: string, params?: Record<string, unknown>, config?: ShortcutConfig): Promise<T> =>
  request<T>({ ...config, url, method: 'get', params });

export const post = <T = unknown>(url: string, data?: unknown, config?: ShortcutConfig): Promise<T> =>
  request<T>({ ...config, url, method: 'post', data });

/**
 * Uploads a file to object storage (SPEC §7): an upload token first, then the multipart upload itself with
 * the long upload timeout. `onProgress` receives whole percents. `bucket` names what the token allows
 * (`attachment`: work-order attachments, more types than the images of the default bucket).
 */
export async function uploadFile(
  file: Blob,
  onProgress?: (percent: number, event: UploadProgress) => void,
  fileName?: string,
  bucket: string = UPLOAD_BUCKET,
): Promise<{ key: string; url: string }> {
  const { token, uploadUrl } = await get<UploadTokenResult>('/user/v1/user/getQnToken', { bucket });
  const form = new FormData();
  form.append('token', token);
  if (fileName !== undefined) form.append('file', file, fileName);
  else form.append('file', file);
  const result = await request<UploadResult>({
    url: uploadUrl,
    method: 'post',
    data: form,
    noToken: true,
    timeout: UPLOAD_TIMEOUT,
    onUploadProgress: (event) => {
      if (!onProgress) return;
      const total = event.total ?? (file.size || 0);
      onProgress(total ? Math.min(100, Math.round((event.loaded / total) * 100)) : 0, event);
    },
  });
  return { key: result.key, url: result.url };
}

/**
 * Downloads what the server streams (a CSV export) under the name it gives (`fallbackName` when it gives none),
 * in the console's language: with the bearer token, and once more with a fresh token when the first answer says
 * the token ran out (the shared refresh). Any other error answer throws.
 */
export async function downloadFile(url: string, params: Record<string, string>, fallbackName: string): Promise<void> {
  const query = new URLSearchParams({ ...params, lang: getLanguage() === 'zh' ? 'zh' : 'en' });
  const once = (token: string) =>
    fetch(`${BASE_URL}${url}?${query.toString()}`, { headers: { Authorization: `Bearer ${token}` } });
  const token = getToken();
  let res = await once(token);
  const isEnvelope = (r: Response) => (r.headers.get('content-type') ?? '').includes('json');
  if (res.status === 402 || (isEnvelope(res) && (await res.clone().json())?.code === 402))
    res = await once(await freshToken(token));
  if (!res.ok || isEnvelope(res)) throw new Error(`download failed: ${res.status}`);
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  const href = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}
