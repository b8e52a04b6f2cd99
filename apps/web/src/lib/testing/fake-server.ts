import { AxiosError, AxiosHeaders, type AxiosAdapter, type AxiosInstance, type InternalAxiosRequestConfig } from 'axios';

/**
 * A stand-in for the back end behind the real request layer: it replaces only axios' transport, so
 * everything the layer does (headers, serialisation, envelope handling, refresh, redirects) really runs.
 */
export interface FakeCall {
  method: string;
  /** Path as it would reach the server, base included: '/apiAdmin/device/list'. */
  url: string;
  headers: Record<string, string>;
  /** The body as sent: parsed when it was JSON, the string for form bodies, the FormData for uploads. */
  body: unknown;
  params: Record<string, unknown> | undefined;
  timeout: number | undefined;
  withCredentials: boolean | undefined;
  config: InternalAxiosRequestConfig;
}

export interface FakeReply {
  status?: number;
  statusText?: string;
  body?: unknown;
  /** No response at all (server down, CORS, timeout). */
  networkError?: boolean;
}

export type FakeHandler = (call: FakeCall) => FakeReply | Promise<FakeReply>;

export const envelope = (data: unknown, code: number | string = 200, msg = 'ok'): FakeReply => ({
  status: typeof code === 'number' && code >= 200 && code < 600 ? code : 200,
  body: { code, msg, data },
});

export const failure = (code: number, msg = ''): FakeReply => ({ status: code, body: { code, msg, data: null } });

function parseBody(data: unknown): unknown {
  if (typeof data !== 'string') return data;
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}

export function fakeServer(http: AxiosInstance) {
  const handlers = new Map<string, FakeHandler>();
  const calls: FakeCall[] = [];

  const adapter: AxiosAdapter = async (config) => {
    const url = `${config.baseURL ?? ''}${config.url ?? ''}`;
    const headers = Object.fromEntries(
      Object.entries(AxiosHeaders.from(config.headers).toJSON()).map(([k, v]) => [k, String(v)]),
    );
    const call: FakeCall = {
      method: (config.method ?? 'get').toUpperCase(),
      url,
      headers,
      body: parseBody(config.data),
      params: config.params,
      timeout: config.timeout,
      withCredentials: config.withCredentials,
      config,
    };
    calls.push(call);
    const handler = handlers.get(`${call.method} ${url}`);
    const reply: FakeReply = handler ? await handler(call) : failure(404, `${call.method} ${url} not found`);
    if (reply.networkError) throw new AxiosError('Network Error', AxiosError.ERR_NETWORK, config, {});
    const response = {
      data: reply.body,
      status: reply.status ?? 200,
      statusText: reply.statusText ?? '',
      headers: {},
      config,
      request: {},
    };
    if (config.validateStatus && !config.validateStatus(response.status)) {
      throw new AxiosError(`Request failed with status code ${response.status}`, AxiosError.ERR_BAD_RESPONSE, config, {}, response);
    }
    return response;
  };

  const previous = http.defaults.adapter;
  http.defaults.adapter = adapter;

  return {
    calls,
    /** Answers `METHOD /apiAdmin/path`. */
    on(method: string, url: string, handler: FakeHandler | FakeReply) {
      handlers.set(`${method.toUpperCase()} ${url}`, typeof handler === 'function' ? handler : () => handler);
      return this;
    },
    callsTo: (url: string) => calls.filter((c) => c.url === url),
    restore() {
      http.defaults.adapter = previous;
    },
  };
}

/** A promise with its resolve exposed, to hold a reply until the test lets it go. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
