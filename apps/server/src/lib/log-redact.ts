import pino from 'pino';
import type { FastifyRequest } from 'fastify';

/**
 * Secrets carried in query strings never reach a log line: the live-event ticket (`?ticket=`), signed links'
 * `sig`, social sign-in's `code` and `state`, and any parameter whose name says token, secret, password,
 * signature or credential. Their values are written as `[Redacted]`; the path and the other parameters stay,
 * so a line still says what was asked.
 */
const SECRET_NAME =
  /^(ticket|code|state|sign|sig|signature|password|passwd|pwd|otp)$|token|ticket|secret|password|signature|credential|api_?key|session/i;

export const REDACTED = '[Redacted]';

function secretName(raw: string): boolean {
  let name = raw;
  try {
    name = decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    // a malformed escape: judged as written
  }
  return SECRET_NAME.test(name);
}

/** The URL (or path with query) with the values of its secret query parameters replaced. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  const parts = query.split('&').map((part) => {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    return eq >= 0 && secretName(name) ? `${name}=${REDACTED}` : part;
  });
  return `${url.slice(0, q + 1)}${parts.join('&')}${hash < 0 ? '' : url.slice(hash)}`;
}

/** `name=value` after `?` or `&` (as in a URL inside a message), up to the next separator, space or quote. */
const QUERY_PAIR = /([?&])([^=&?#\s"'<>]+)=([^&#\s"'<>]*)/g;

/** Any text (a message, an error's stack) with the values of secret query parameters in it replaced. */
export function redactText(text: string): string {
  if (!text.includes('=')) return text;
  return text.replace(QUERY_PAIR, (all, sep: string, name: string) =>
    secretName(name) ? `${sep}${name}=${REDACTED}` : all,
  );
}

const errSerializer = pino.stdSerializers.err;

/** A serialized error's texts, its causes' and aggregated errors' too (to `depth` levels), redacted in place. */
function redactStrings<T extends Record<string, unknown>>(o: T, depth: number): T {
  const rec = o as Record<string, unknown>;
  for (const [k, v] of Object.entries(rec)) {
    if (typeof v === 'string') rec[k] = redactText(v);
    else if (depth > 0 && v && typeof v === 'object') redactStrings(v as Record<string, unknown>, depth - 1);
  }
  return o;
}

/** Fastify's request, response and error serializers, with the URL and error texts redacted. */
export const logSerializers = {
  req(req: FastifyRequest) {
    return {
      method: req.method,
      url: redactUrl(req.url),
      version: [req.headers?.['accept-version']].flat()[0],
      host: req.host,
      remoteAddress: req.ip,
      remotePort: req.socket?.remotePort,
    };
  },
  err(err: Error) {
    const out = errSerializer(err);
    // what is not an error is returned as it was given: the caller's own object, not ours to change
    return (out as unknown) === err ? out : redactStrings(out, 3);
  },
};

/**
 * Every call of a logger (children included): its message, and the string fields of the object logged with it
 * (`{ url: req.url }` and the like), go out redacted.
 */
export const logHooks = {
  logMethod(this: pino.Logger, args: unknown[], method: pino.LogFn) {
    const out = args.map((a) => {
      if (typeof a === 'string') return redactText(a);
      if (a && typeof a === 'object' && !(a instanceof Error) && Object.getPrototypeOf(a) === Object.prototype) {
        let copy: Record<string, unknown> | undefined;
        for (const [k, v] of Object.entries(a)) {
          if (typeof v !== 'string') continue;
          const r = redactText(v);
          if (r !== v) (copy ??= { ...(a as Record<string, unknown>) })[k] = r;
        }
        return copy ?? a;
      }
      return a;
    });
    return (method as (...a: unknown[]) => void).apply(this, out);
  },
};
