import { NoResponseError, type http as Http, type HttpAdapter, type HttpRequest } from '../http';

/**
 * A stand-in for the back end behind the real request layer: it replaces only the transport's adapter, so
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
  request: HttpRequest;
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

export function fakeServer(http: typeof Http) {
  const handlers = new Map<string, FakeHandler>();
  const calls: FakeCall[] = [];

  const adapter: HttpAdapter = async (request) => {
    const call: FakeCall = {
      method: request.method,
      url: request.url,
      headers: { ...request.headers },
      body: parseBody(request.body),
      params: request.params,
      timeout: request.timeout,
      withCredentials: request.withCredentials,
      request,
    };
    calls.push(call);
    const handler = handlers.get(`${call.method} ${call.url}`);
    const reply: FakeReply = handler ? await handler(call) : failure(404, `${call.method} ${call.url} not found`);
    if (reply.networkError) throw new NoResponseError('Network Error');
    return { data: reply.body ?? '', status: reply.status ?? 200, statusText: reply.statusText ?? '' };
  };

  const previous = http.adapter;
  http.adapter = adapter;

  return {
    calls,
    /** Answers `METHOD /apiAdmin/path`. */
    on(method: string, url: string, handler: FakeHandler | FakeReply) {
      handlers.set(`${method.toUpperCase()} ${url}`, typeof handler === 'function' ? handler : () => handler);
      return this;
    },
    callsTo: (url: string) => calls.filter((c) => c.url === url),
    restore() {
      http.adapter = previous;
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
