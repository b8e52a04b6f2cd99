import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import rateLimit, {
  type FastifyRateLimitOptions,
  type FastifyRateLimitStore,
  type RateLimitOptions,
} from '@fastify/rate-limit';
import type { RateLimit } from '../config.ts';
import type { Db } from '../db/database.ts';
import { addressKey, hit, pruneCounters } from '../lib/counters.ts';
import { Periodic } from '../lib/periodic.ts';
import { AppError } from './errors.ts';

/**
 * Per client address limits of the calls anyone may make without an account (captchas, SMS codes,
 * registrations) and of calls to no route at all (404s: scanners): @fastify/rate-limit counting in PostgreSQL
 * (lib/counters.ts), so every node shares one count and a limit holds on any number of nodes. A call over its
 * limit is answered 429 `{ code: 429, msg, data: { retryAfter } }` with Retry-After (seconds), before its body is
 * read. The client address is `req.ip`: the TCP peer, or what a trusted proxy says (TRUSTED_PROXIES).
 */

/** The limit of a route, for its `config.rateLimit`: `limit.max` calls per client address in `limit.windowS`. */
export const perAddress = (limit: RateLimit): RateLimitOptions => ({
  max: limit.max,
  timeWindow: limit.windowS * 1000,
});

/** How often counters whose window is over are deleted. */
const PRUNE_MS = 60_000;

/** A store of @fastify/rate-limit: one counter per route (every method of it) and client address. */
function postgresStore(db: Db) {
  class PostgresStore implements FastifyRateLimitStore {
    /** Made by the plugin with its options (unused here), and by `child` for each limit. */
    constructor(
      _options: FastifyRateLimitOptions,
      private bucket = 'rate:global',
    ) {}

    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ): void {
      hit(db, timeWindow, [{ bucket: this.bucket, key }]).then(
        ([h]) => callback(null, { current: h.hits, ttl: h.ttlMs }),
        (err: Error) => callback(err),
      );
    }

    child(routeOptions: { url?: string; routeInfo?: { url?: string } }): FastifyRateLimitStore {
      // a route's own limit: its URL names the counter (GET and its HEAD share it); a limiter made with
      // `app.rateLimit()` has no route and is the 404s'
      const url = routeOptions.routeInfo?.url ?? routeOptions.url;
      return new PostgresStore({}, url ? `rate:${url}` : 'rate:not-found');
    }
  }
  return PostgresStore;
}

export const rateLimits = fp(
  async (app: FastifyInstance, opts: { db: Db; notFound: RateLimit }) => {
    await app.register(rateLimit, {
      // only the routes that ask for a limit (config.rateLimit), and the 404s below
      global: false,
      store: postgresStore(opts.db),
      keyGenerator: (req) => addressKey(req.ip),
      errorResponseBuilder: (_req, ctx) => {
        const seconds = Math.max(1, Math.ceil(ctx.ttl / 1000));
        return new AppError(
          429,
          'http.rateLimited',
          { n: seconds },
          { data: { retryAfter: seconds }, headers: { 'retry-after': String(seconds) } },
        );
      },
    });
    const notFound = app.rateLimit(perAddress(opts.notFound));
    // the 404 handler is no route, so no route option reaches it: a hook of the root sees its requests
    app.addHook('onRequest', async (req, reply) => {
      if (req.is404) await notFound.call(app, req, reply);
    });

    const upkeep = new Periodic((err) => app.log.warn({ err }, 'rate counters: prune failed'), {
      locks: app.clusterLocks,
      scope: 'rate counters',
    });
    app.addHook('onReady', async () => upkeep.every(PRUNE_MS, 'prune', () => pruneCounters(opts.db), 'cluster'));
    app.addHook('onClose', () => upkeep.stop());
  },
  { name: 'cpc-rate-limits' },
);
