import net from 'node:net';
import { createHmac } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { sql, type RawBuilder } from 'kysely';
import {
  NONCE_RULE,
  OPEN_HEADERS,
  OPEN_RATE_WINDOW_S,
  OPEN_REQUIRED_HEADERS,
  RATE_LIMITED_REASON,
  type OpenAuthReason,
} from '@cpc/contracts/open-api';
import { PREPARED, type Db } from '../../db/database.ts';
import { AppError } from '../../plugins/errors.ts';
import type { MessageKey, ParamsArg } from '@cpc/contracts/messages';
import { GroupCommit } from '../../lib/group-commit.ts';
import { openSignature, sha256Hex, signatureMatches } from './signature.ts';

/** What the header check (before the body is read) found, for the signature check after it. */
interface HeaderCheck {
  key: KeyRow;
  timestamp: string;
  nonce: string;
  signature: string;
  /** The X-CPC-Content-Sha256 header (lower case), when sent. */
  contentSha256: string | undefined;
}

/** The key's row as the checks read it. */
interface KeyRow {
  id: number;
  tenant_id: number;
  app_id: string;
  secret: string;
  state: string;
  ip_allow: string[];
  rate_limit: number | null;
}

/** The parts of a key row that decide a check: a change of any makes the checks run again on the fresh row. */
const keyVersion = (k: KeyRow) => `${k.secret}|${k.state}|${k.ip_allow.join(',')}|${k.rate_limit ?? ''}`;

/** What a signed call carries through its handler and into the request log. */
export interface OpenContext {
  /** The key named by the call, once found (also for a call refused later: its log shows the refusal). */
  key: { id: number; tenantId: number; appId: string } | null;
  authenticated: boolean;
  reason: string | null;
  ip: string;
  /** The raw body, for its hash. */
  rawBody: Buffer | undefined;
  /** A body that is not JSON: answered only after the signature check, so an unsigned call always gets its 401. */
  bodyError: AppError | null;
  jobId: string | null;
  newJob: boolean;
  testPrint: boolean;
  startedAt: number;
  headers: HeaderCheck | null;
  /** The nonce, recorded with an asynchronous commit: made durable before the answer unless a new job's commit did it. */
  nonceToPersist: { keyId: number; nonce: string; expiresAt: Date } | null;
  /** What the route asked `verify` to read in its round trip (`OpenLookups`), once verified. */
  lookups: Record<string, unknown> | null;
}

/**
 * Columns a route adds to the signature's own round trip (the rate count and the nonce), read for the key
 * the call is signed with: a submit's originId and device look-ups ride along instead of costing their own.
 * `select` is one fixed SQL select list over `lv`, the call's `values` as jsonb: a group of calls runs it once
 * per call in one statement whose text (and plan) does not depend on the group's size.
 */
export interface OpenLookups {
  /** The call's values for `select` (null: nothing to look up, e.g. a body the schema will refuse). */
  values: (req: FastifyRequest, key: { id: number; tenantId: number }) => Record<string, string | number> | null;
  select: RawBuilder<unknown>;
}

declare module 'fastify' {
  interface FastifyRequest {
    open: OpenContext | null;
  }
}

export interface OpenAuthOptions {
  clockWindowS: number;
  /** Calls per key per second, for keys without a limit of their own. */
  rateLimit: number;
  /** Signs the marker of the console's own test print (which may come from outside the key's allow-list). */
  consoleSecret: string;
}

/** The marker header of a test print the console sends through the open API on the user's behalf. */
export const TEST_PRINT_HEADER = 'x-cpc-console-test';

const refuse = <K extends MessageKey>(
  reason: OpenAuthReason,
  key: K,
  params: ParamsArg<K>[0],
  extra: Record<string, unknown> = {},
) => new AppError<MessageKey>(401, key, params as never, { data: { reason, ...extra } });
const unknownApp = (appId: string) =>
  refuse('unknown_app', 'open.unknownAppId', { appId: appId.length > 40 ? `${appId.slice(0, 40)}…` : appId });
const unmap = (ip: string) => (ip.startsWith('::ffff:') && net.isIPv4(ip.slice(7)) ? ip.slice(7) : ip);
const HEX64 = /^[0-9a-fA-F]{64}$/;
/** How long a node reuses a key's row for the checks before the body (the checks after it read it again). */
const KEY_CACHE_MS = 1000;
const KEY_CACHE_MAX = 10_000;

/** One call's rate count and nonce, for the signature's statement (alone, or with a group of calls). */
interface Count {
  keyId: number;
  windowS: number;
  nonce: string;
  expiresAt: Date;
  limit: number;
  lookup: { def: OpenLookups; values: Record<string, string | number> } | null;
}
/** What the statement answers a call: its place in the window's count, a new nonce, the key's row, the look-ups. */
type Counted = { hits: number; fresh: boolean; key: KeyRow | null } & Record<string, unknown>;

function blockList(entries: string[]): net.BlockList {
  const list = new net.BlockList();
  for (const e of entries) {
    const [addr, bits] = e.split('/');
    const type = net.isIPv6(addr) ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, Number(bits), type);
  }
  return list;
}
const allows = (list: net.BlockList, ip: string) => list.check(ip, net.isIPv6(ip) ? 'ipv6' : 'ipv4');

/**
 * The open API's signature check (docs/open-api.md), in two steps. Before the body is read (`checkHeaders`,
 * onRequest): headers present and well formed → the key exists and is active → the caller's address is allowed
 * → the timestamp is within the window; so an unsigned call is refused with 401 whatever its body (too large,
 * not JSON). Once the body is read (`verify`): the body matches X-CPC-Content-Sha256 when sent → the HMAC
 * matches → then, in one statement shared by every node, the key's calls in this window are counted (429 over
 * its limit) and the nonce is recorded (401 when seen before). A refused call never reaches a handler.
 */
export class OpenAuth {
  /**
   * Key rows by app id, read at most once a second per node for the checks before the body. Never trusted
   * alone: `verify` reads the row again in its own round trip and, when it changed (a rotation, disabling, a
   * new allow-list or limit, on any node), runs every check again on the fresh row — so an old secret fails
   * from the next call on, everywhere.
   */
  private keys = new Map<string, { row: KeyRow; at: number }>();
  /**
   * The statements of calls whose own durable write follows (submits), grouped: those that arrive while one
   * is in flight share the next statement and its (asynchronous) commit.
   */
  private counts: GroupCommit<Count, Counted>;

  constructor(
    private db: Db,
    private opts: OpenAuthOptions,
  ) {
    this.counts = new GroupCommit({
      windowMs: 0,
      max: 256,
      single: (c) => this.countOne(c, true),
      flush: (cs) => this.countGroup(cs),
    });
  }

  /** One call's rate count and nonce (and the route's look-ups, the key's row) in one statement. */
  private async countOne(c: Count, async: boolean): Promise<Counted> {
    const { rows } = await sql<Counted>`${PREPARED}
      WITH r AS (
        INSERT INTO open_rate (app_key_id, window_s, hits) VALUES (${c.keyId}, ${c.windowS}, 1)
        ON CONFLICT (app_key_id, window_s) DO UPDATE SET hits = open_rate.hits + 1
        RETURNING hits
      ), n AS (
        INSERT INTO open_nonces (app_key_id, nonce, expires_at)
        SELECT ${c.keyId}, ${c.nonce}, ${c.expiresAt} FROM r WHERE r.hits <= ${c.limit}
        ON CONFLICT DO NOTHING
        RETURNING 1
      )
      SELECT r.hits, EXISTS (SELECT 1 FROM n) AS fresh,
        (SELECT to_jsonb(k) FROM (SELECT id, tenant_id, app_id, secret, state, ip_allow, rate_limit FROM app_keys WHERE id = ${c.keyId}) k) AS key
        ${c.lookup ? sql`, ${c.lookup.def.select}` : sql``}${async ? sql`, set_config('synchronous_commit', 'off', true) AS _` : sql``}
      FROM r${c.lookup ? sql`, (SELECT ${JSON.stringify(c.lookup.values)}::jsonb AS lv) lvs` : sql``}`.execute(this.db);
    return rows[0];
  }

  /**
   * The counts of a group of calls in one statement: each key's window counted once by the group's size, each
   * call given its own place in it in arrival order (so a limit refuses the same calls as one by one), a nonce
   * sent twice in the group fresh only for the first; committed asynchronously (the calls' writes follow).
   */
  private async countGroup(cs: Count[]): Promise<Counted[]> {
    // the distinct look-ups of the group (in practice one: the submit's), each a lateral select over its calls
    const defs = [...new Set(cs.flatMap((c) => (c.lookup ? [c.lookup.def] : [])))];
    const data = JSON.stringify(
      cs.map((c, i) => ({
        i,
        key_id: c.keyId,
        window_s: c.windowS,
        nonce: c.nonce,
        expires_at: c.expiresAt.toISOString(),
        lim: c.limit,
        lk: c.lookup ? defs.indexOf(c.lookup.def) : null,
        lv: c.lookup?.values ?? null,
      })),
    );
    const { rows } = await sql<{ i: number; hits: number; fresh: boolean; key: KeyRow | null; extra: unknown }>`
      WITH b AS (
        SELECT * FROM jsonb_to_recordset(${data}::jsonb)
          AS b(i int, key_id bigint, window_s bigint, nonce text, expires_at timestamptz, lim int, lk int, lv jsonb)
      ), c AS (
        SELECT key_id, window_s, count(*)::int AS n FROM b GROUP BY key_id, window_s
      ), r AS (
        INSERT INTO open_rate (app_key_id, window_s, hits) SELECT key_id, window_s, n FROM c ORDER BY key_id, window_s
        ON CONFLICT (app_key_id, window_s) DO UPDATE SET hits = open_rate.hits + excluded.hits
        RETURNING app_key_id, window_s, hits
      ), ranked AS (
        SELECT b.*, (r.hits - c.n + row_number() OVER (PARTITION BY b.key_id, b.window_s ORDER BY b.i))::int AS hits
        FROM b JOIN c USING (key_id, window_s) JOIN r ON r.app_key_id = b.key_id AND r.window_s = b.window_s
      ), firsts AS (
        SELECT DISTINCT ON (key_id, nonce) i, key_id, nonce, expires_at FROM ranked WHERE hits <= lim ORDER BY key_id, nonce, i
      ), n AS (
        INSERT INTO open_nonces (app_key_id, nonce, expires_at) SELECT key_id, nonce, expires_at FROM firsts
        ON CONFLICT DO NOTHING
        RETURNING app_key_id, nonce
      )
      SELECT ranked.i, ranked.hits,
        EXISTS (SELECT 1 FROM n JOIN firsts f ON f.key_id = n.app_key_id AND f.nonce = n.nonce WHERE f.i = ranked.i) AS fresh,
        (SELECT to_jsonb(k) FROM (SELECT id, tenant_id, app_id, secret, state, ip_allow, rate_limit FROM app_keys WHERE id = ranked.key_id) k) AS key,
        ${defs.length ? sql`coalesce(${sql.join(defs.map((_, k) => sql.ref(`lk${k}.extra`)))})` : sql`NULL::jsonb`} AS extra,
        set_config('synchronous_commit', 'off', true) AS _
      FROM ranked ${sql.join(
        defs.map(
          (d, k) =>
            sql`LEFT JOIN LATERAL (SELECT to_jsonb(l) AS extra FROM (SELECT ${d.select} FROM (SELECT ranked.lv) lvs) l WHERE ranked.lk = ${k}) ${sql.ref(`lk${k}`)} ON true`,
        ),
        sql` `,
      )}`.execute(this.db);
    const out: Counted[] = new Array<Counted>(cs.length);
    for (const r of rows) {
      const extra = (r.extra ?? {}) as Record<string, unknown>;
      out[r.i] = { ...extra, hits: r.hits, fresh: r.fresh, key: r.key };
    }
    return out;
  }

  /**
   * The caller's address: the server's one client address (`req.ip`: the TCP peer, or what a proxy of
   * TRUSTED_PROXIES says), an IPv4-mapped IPv6 address written as IPv4 for the allow-lists.
   */
  clientIp(req: FastifyRequest): string {
    return unmap(req.ip);
  }

  testPrintMarker(nonce: string): string {
    return createHmac('sha256', this.opts.consoleSecret).update(`test-print:${nonce}`).digest('hex');
  }

  /** The checks that need no body (onRequest): one lookup of the key. */
  async checkHeaders(req: FastifyRequest, ctx: OpenContext): Promise<void> {
    const h = req.headers;
    const value = (name: string) => {
      const v = h[name];
      return typeof v === 'string' ? v.trim() : undefined;
    };
    const missing = OPEN_REQUIRED_HEADERS.filter((n) => !value(n));
    if (missing.length)
      throw refuse('missing_headers', 'open.headersMissing', { headers: missing.join(', ') }, { missing });
    const appId = value(OPEN_HEADERS.appId)!;
    const timestamp = value(OPEN_HEADERS.timestamp)!;
    const nonce = value(OPEN_HEADERS.nonce)!;
    const signature = value(OPEN_HEADERS.signature)!;
    const contentSha256 = value(OPEN_HEADERS.contentSha256);
    if (!/^\d{1,12}$/.test(timestamp))
      throw refuse('malformed_header', 'open.badTimestamp', { header: OPEN_HEADERS.timestamp });
    if (!NONCE_RULE.test(nonce)) throw refuse('malformed_header', 'open.badNonce', { header: OPEN_HEADERS.nonce });
    if (!HEX64.test(signature))
      throw refuse('malformed_header', 'open.badSignatureFormat', { header: OPEN_HEADERS.signature });
    if (contentSha256 !== undefined && !HEX64.test(contentSha256))
      throw refuse('malformed_header', 'open.badContentSha', { header: OPEN_HEADERS.contentSha256 });

    const marker = value(TEST_PRINT_HEADER);
    ctx.testPrint = !!marker && signatureMatches(this.testPrintMarker(nonce), marker);
    const key = await this.keyRow(appId);
    if (!key) throw unknownApp(appId);
    ctx.key = { id: key.id, tenantId: key.tenant_id, appId: key.app_id };
    ctx.headers = { key, timestamp, nonce, signature, contentSha256: contentSha256?.toLowerCase() };
    try {
      this.checkKey(ctx);
    } catch (refusal) {
      // a refusal that the key's row decides is said on the row as it is now, not on this node's copy (enabled
      // again, a new allow-list, or deleted, meanwhile); a stale timestamp needs no second look
      const reason = refusal instanceof AppError ? (refusal.data as { reason?: string } | null)?.reason : undefined;
      if (reason !== 'app_disabled' && reason !== 'ip_not_allowed') throw refusal;
      const fresh = await this.keyRow(appId, true);
      if (!fresh) throw unknownApp(appId);
      if (keyVersion(fresh) === keyVersion(key)) throw refusal;
      ctx.headers.key = fresh;
      this.checkKey(ctx);
    }
  }

  /** The key row of an app id, from this node's cache when read within the last second. */
  private async keyRow(appId: string, fresh = false): Promise<KeyRow | null> {
    const cached = this.keys.get(appId);
    if (!fresh && cached && Date.now() - cached.at < KEY_CACHE_MS) return cached.row;
    const row =
      (await this.db
        .selectFrom('app_keys')
        .select(['id', 'tenant_id', 'app_id', 'secret', 'state', 'ip_allow', 'rate_limit'])
        .where('app_id', '=', appId)
        .executeTakeFirst()) ?? null;
    // only keys that exist are kept: made-up app ids must not fill the cache
    if (row) this.remember(row);
    else this.keys.delete(appId);
    return row;
  }

  private remember(row: KeyRow): void {
    if (this.keys.size >= KEY_CACHE_MAX) this.keys.clear();
    this.keys.set(row.app_id, { row, at: Date.now() });
  }

  /** Every check of the call again, on the key's row as it is now (it changed since this node read it). */
  private recheck(req: FastifyRequest, ctx: OpenContext, row: KeyRow, bodySha256: string): void {
    ctx.headers!.key = row;
    this.checkKey(ctx);
    if (!this.signatureOk(req, ctx.headers!, bodySha256)) throw refuse('bad_signature', 'open.badSignature', null);
  }

  /** Forgets a key's row on this node at once (a change made here); other nodes see it at their next call's check. */
  forgetKey(appId: string): void {
    this.keys.delete(appId);
  }

  /** The checks of the key itself: active, the caller's address allowed, the timestamp within the window. */
  private checkKey(ctx: OpenContext): void {
    const { key, timestamp } = ctx.headers!;
    if (key.state !== 'active') throw refuse('app_disabled', 'open.keyDisabled', null);
    if (key.ip_allow.length && !ctx.testPrint && !allows(blockList(key.ip_allow), ctx.ip)) {
      throw refuse('ip_not_allowed', 'open.ipRefused', { ip: ctx.ip });
    }
    const skew = Math.floor(Date.now() / 1000) - Number(timestamp);
    if (Math.abs(skew) > this.opts.clockWindowS) {
      throw refuse('stale_timestamp', 'open.clockSkew', {
        n: Math.abs(skew),
        direction: skew > 0 ? 'old' : 'ahead',
        window: this.opts.clockWindowS,
      });
    }
  }

  private signatureOk(req: FastifyRequest, c: HeaderCheck, bodySha256: string): boolean {
    const q = req.url.indexOf('?');
    const expected = openSignature(c.key.secret, {
      method: req.method,
      path: q < 0 ? req.url : req.url.slice(0, q),
      query: q < 0 ? '' : req.url.slice(q + 1),
      timestamp: c.timestamp,
      nonce: c.nonce,
      bodySha256,
    });
    return signatureMatches(expected, c.signature);
  }

  /**
   * The checks that need the body (preValidation), then the rate count and the nonce in one round trip.
   * `deferNonceDurability`: the call's own durable write follows (a submit's job insert), so the nonce is
   * committed without waiting for the disk — the job's commit flushes the log up to and past it — and
   * `persistNonce` makes it durable when no such write came.
   */
  async verify(
    req: FastifyRequest,
    ctx: OpenContext,
    opts: { deferNonceDurability: boolean; lookups?: OpenLookups },
  ): Promise<void> {
    const c = ctx.headers;
    if (!c) throw new AppError(401, 'open.notSigned');
    const bodySha256 = sha256Hex(ctx.rawBody);
    // the declared hash is checked before the signature: a body changed in transit is told apart from a wrong secret
    if (c.contentSha256 !== undefined && c.contentSha256 !== bodySha256) {
      throw refuse('body_mismatch', 'open.bodyMismatch', { header: OPEN_HEADERS.contentSha256 });
    }
    if (!this.signatureOk(req, c, bodySha256)) {
      // signed with a secret this node has not seen yet (rotated in the last second): once more on the fresh row
      const fresh = await this.keyRow(c.key.app_id, true);
      if (!fresh || keyVersion(fresh) === keyVersion(c.key)) throw refuse('bad_signature', 'open.badSignature', null);
      this.recheck(req, ctx, fresh, bodySha256);
    }

    // Counted and recorded on every node's shared tables in one round trip, which also reads the key's row as it
    // is now and whatever the route looks up. The counter is an unlogged table (a crash only resets a window's
    // count); the nonce is durable before any answer, so a crash of PostgreSQL never forgets one and never takes
    // a replay.
    const limit = c.key.rate_limit ?? this.opts.rateLimit;
    const windowS = Math.floor(Date.now() / 1000 / OPEN_RATE_WINDOW_S) * OPEN_RATE_WINDOW_S;
    const expiresAt = new Date((Math.max(Number(c.timestamp), windowS) + this.opts.clockWindowS + 60) * 1000);
    const values = opts.lookups?.values(req, { id: c.key.id, tenantId: c.key.tenant_id }) ?? null;
    const lookup = opts.lookups && values ? { def: opts.lookups, values } : null;
    const count: Count = { keyId: c.key.id, windowS, nonce: c.nonce, expiresAt, limit, lookup };
    // a submit's commit is grouped with those of other submits (its own job's commit makes it durable)
    const row = opts.deferNonceDurability ? await this.counts.add(count) : await this.countOne(count, false);
    const rows = [row];
    const { hits, fresh, key: now } = rows[0];
    if (!now || keyVersion(now) !== keyVersion(c.key)) {
      // the key changed since this node read it (on any node): every check again on the row as it is now
      if (!now) {
        this.keys.delete(c.key.app_id);
        throw unknownApp(c.key.app_id);
      }
      this.remember(now);
      this.recheck(req, ctx, now, bodySha256);
    }
    const nowLimit = c.key.rate_limit ?? this.opts.rateLimit;
    if (hits > nowLimit) {
      const retryAfterS = Math.max(1, Math.ceil(((windowS + OPEN_RATE_WINDOW_S) * 1000 - Date.now()) / 1000));
      throw new AppError(
        429,
        'open.rateLimited',
        { n: nowLimit, s: retryAfterS },
        {
          data: { reason: RATE_LIMITED_REASON, limit: nowLimit, retryAfterS },
          headers: { 'retry-after': String(retryAfterS) },
        },
      );
    }
    if (!fresh) throw refuse('nonce_reused', 'open.nonceReused', null);
    if (opts.deferNonceDurability) ctx.nonceToPersist = { keyId: c.key.id, nonce: c.nonce, expiresAt };
    ctx.lookups = lookup ? rows[0] : null;
    ctx.authenticated = true;
  }

  /** Writes the call's nonce again with a durable commit, which flushes the log past its first, asynchronous, insert. */
  async persistNonce(ctx: OpenContext): Promise<void> {
    const n = ctx.nonceToPersist;
    if (!n) return;
    ctx.nonceToPersist = null;
    await sql`
      INSERT INTO open_nonces (app_key_id, nonce, expires_at) VALUES (${n.keyId}, ${n.nonce}, ${n.expiresAt})
      ON CONFLICT (app_key_id, nonce) DO UPDATE SET expires_at = excluded.expires_at`.execute(this.db);
  }

  /** Forgets expired nonces and old counters (any node; idempotent). */
  async prune(): Promise<void> {
    await sql`DELETE FROM open_nonces WHERE expires_at < now()`.execute(this.db);
    await sql`DELETE FROM open_rate WHERE window_s < extract(epoch FROM now())::bigint - 60`.execute(this.db);
  }
}
