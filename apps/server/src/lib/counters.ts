import net from 'node:net';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

/**
 * Counters shared by every node (table rate_counters): one row per bucket and key, counting hits in a fixed
 * window that starts at the row's first hit. A hit is counted and read back in one statement under the row's
 * lock, so a limit checked on what `hit` returns holds whatever the concurrency, on any number of nodes: of N
 * simultaneous callers exactly the first `limit` see a count within it. Times are PostgreSQL's, the one clock
 * of all nodes.
 */

export interface CounterKey {
  bucket: string;
  key: string;
}

export interface Hit extends CounterKey {
  /** Hits in the window, this one included. */
  hits: number;
  /** When the window ends (to the millisecond); the count starts again from nothing after it. */
  resetAt: Date;
  /** Milliseconds until then. */
  ttlMs: number;
}

/** Row keys are at most this long: a typed name is the caller's input. */
const KEY_MAX = 200;
/** A lone surrogate reaches PostgreSQL as U+FFFD: the key is made so first, or its row would not be found again. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Counts one hit on each counter, in one statement, and returns every count (in the order given). The rows are
 * locked in one order (bucket, key) whatever the order given, so two calls over the same counters never wait on
 * each other in a circle.
 */
export async function hit(db: Db, windowMs: number, counters: CounterKey[]): Promise<Hit[]> {
  if (!counters.length) return [];
  const keys = counters.map((c) => ({
    bucket: c.bucket,
    key: c.key.slice(0, KEY_MAX).replace(LONE_SURROGATE, '\uFFFD'),
  }));
  const sorted = [...new Map(keys.map((c) => [`${c.bucket}\u0000${c.key}`, c])).values()].sort((a, b) =>
    a.bucket === b.bucket ? (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) : a.bucket < b.bucket ? -1 : 1,
  );
  const { rows } = await sql<{ bucket: string; key: string; hits: number; reset_at: Date; ttl_ms: number }>`
    INSERT INTO rate_counters AS c (bucket, key, hits, reset_at)
    SELECT t.bucket, t.key, 1, date_trunc('milliseconds', now() + ${windowMs} * interval '1 millisecond')
    FROM unnest(${sorted.map((c) => c.bucket)}::text[], ${sorted.map((c) => c.key)}::text[]) WITH ORDINALITY AS t(bucket, key, n)
    ORDER BY t.n
    ON CONFLICT (bucket, key) DO UPDATE SET
      hits = CASE WHEN c.reset_at <= now() THEN 1 ELSE c.hits + 1 END,
      reset_at = CASE WHEN c.reset_at <= now() THEN excluded.reset_at ELSE c.reset_at END
    RETURNING c.bucket, c.key, c.hits, c.reset_at, greatest(0, extract(epoch FROM c.reset_at - now()) * 1000)::float8 AS ttl_ms`.execute(
    db,
  );
  const byKey = new Map(rows.map((r) => [`${r.bucket}\u0000${r.key}`, r]));
  return keys.map((c) => {
    const r = byKey.get(`${c.bucket}\u0000${c.key}`)!;
    return { bucket: r.bucket, key: r.key, hits: r.hits, resetAt: r.reset_at, ttlMs: r.ttl_ms };
  });
}

/**
 * Takes back one hit of each counter, in the window it was counted in only: once that window is over the count
 * started again and is someone else's.
 */
export async function unhit(db: Db, hits: Hit[]): Promise<void> {
  if (!hits.length) return;
  await sql`
    UPDATE rate_counters AS c SET hits = c.hits - 1
    FROM unnest(${hits.map((h) => h.bucket)}::text[], ${hits.map((h) => h.key)}::text[], ${hits.map((h) => h.resetAt.toISOString())}::timestamptz[]) AS t(bucket, key, reset_at)
    WHERE c.bucket = t.bucket AND c.key = t.key AND c.reset_at = t.reset_at AND c.hits > 0`.execute(db);
}

/** Forgets counters whose window is over (any node, any time; idempotent). */
export async function pruneCounters(db: Db): Promise<void> {
  await sql`DELETE FROM rate_counters WHERE reset_at < now()`.execute(db);
}

/**
 * The key of a client address for per-address counters: an IPv4 address (also written IPv4-mapped, ::ffff:a.b.c.d)
 * as itself, an IPv6 address by its /64 network, the block one subscriber is given; counting single IPv6
 * addresses would let one caller step through 2^64 of them.
 */
export function addressKey(ip: string | undefined): string {
  // a socket already closed has no address left
  if (!ip) return 'unknown';
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (v4) return v4[1];
  if (!net.isIPv6(ip)) return ip.toLowerCase();
  const [head, tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // an embedded IPv4 tail (::a.b.c.d) lies in the interface half: only the first four groups matter
  const groups = ip.includes('::')
    ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => (parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
}
