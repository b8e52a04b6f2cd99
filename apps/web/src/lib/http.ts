/**
 * The console's HTTP transport: `fetch`, and `XMLHttpRequest` for uploads, whose progress fetch cannot report
 * (SPEC §7). Every status resolves — the request layer reads the envelope's code, not the status — and only a
 * call that got no response at all rejects, with `NoResponseError`. The adapter can be swapped (tests put a
 * fake back end behind the real request layer).
 */

export interface UploadProgress {
  loaded: number;
  total?: number;
}

export type QueryParams = Record<string, unknown>;

export interface HttpRequest {
  /** Upper case: GET, POST, … */
  method: string;
  /** Path with the base, without the query: '/apiAdmin/device/list'. */
  url: string;
  /** Serialised into the query string; null and undefined are left out, arrays repeat their key. */
  params?: QueryParams;
  headers: Record<string, string>;
  /** A string (JSON or form-encoded) or a FormData (multipart; the browser writes the boundary). */
  body?: string | FormData;
  /** Milliseconds before giving up; the call then rejects as having no response. */
  timeout: number;
  /** Send cookies (the refresh credential is an httpOnly cookie). */
  withCredentials?: boolean;
  onUploadProgress?: (event: UploadProgress) => void;
}

export interface HttpResponse {
  status: number;
  statusText: string;
  /** The body parsed as JSON when it is JSON, else its text ('' when empty). */
  data: unknown;
}

export type HttpAdapter = (request: HttpRequest) => Promise<HttpResponse>;

/** No response arrived: the network, CORS, a wrong address, or the time-out. */
export class NoResponseError extends Error {
  override name = 'NoResponseError';
  constructor(
    message: string,
    readonly timedOut = false,
  ) {
    super(message);
  }
}

const paramValue = (v: unknown): string =>
  v instanceof Date ? v.toISOString() : typeof v === 'object' ? JSON.stringify(v) : String(v);

/** `a=1&b=x&b=y`: null and undefined are left out, arrays repeat their key, objects go as JSON, dates as ISO. */
export function encodeParams(params: QueryParams): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value])
      if (item !== undefined && item !== null) search.append(key, paramValue(item));
  }
  return search.toString();
}

export function queryString(params: QueryParams | undefined): string {
  const s = params ? encodeParams(params) : '';
  return s ? `?${s}` : '';
}

const parse = (text: string): unknown => {
  if (!text) return '';
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

function viaFetch(request: HttpRequest): Promise<HttpResponse> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, request.timeout);
  return fetch(request.url + queryString(request.params), {
    method: request.method,
    headers: request.headers,
    body: request.body,
    credentials: request.withCredentials ? 'include' : 'same-origin',
    signal: controller.signal,
  })
    .then(async (response) => ({
      status: response.status,
      statusText: response.statusText,
      data: parse(await response.text()),
    }))
    .catch((error: unknown) => {
      throw new NoResponseError(
        timedOut ? `timeout of ${request.timeout}ms exceeded` : error instanceof Error ? error.message : String(error),
        timedOut,
      );
    })
    .finally(() => clearTimeout(timer));
}

function viaXhr(request: HttpRequest): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(request.method, request.url + queryString(request.params));
    xhr.timeout = request.timeout;
    xhr.withCredentials = !!request.withCredentials;
    for (const [name, value] of Object.entries(request.headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (e) =>
      request.onUploadProgress?.({ loaded: e.loaded, total: e.lengthComputable ? e.total : undefined });
    xhr.onload = () => resolve({ status: xhr.status, statusText: xhr.statusText, data: parse(xhr.responseText) });
    xhr.onerror = () => reject(new NoResponseError('Network Error'));
    xhr.ontimeout = () => reject(new NoResponseError(`timeout of ${request.timeout}ms exceeded`, true));
    xhr.send(request.body ?? null);
  });
}

const defaultAdapter: HttpAdapter = (request) => (request.onUploadProgress ? viaXhr(request) : viaFetch(request));

export const http = {
  adapter: defaultAdapter,
  request(request: HttpRequest): Promise<HttpResponse> {
    return this.adapter(request);
  },
};
