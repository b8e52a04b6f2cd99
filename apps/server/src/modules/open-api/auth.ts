import net from 'node:net';
import { createHmac } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { NONCE_RULE, OPEN_HEADERS, RATE_LIMITED_REASON, type OpenAuthReason } from '@cpc/contracts/open-api';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../plugins/errors.ts';
import { openSignature, sha256Hex, signatureMatches } from './signature.ts';

/** What a signed call carries through its handler and into the request log. */
export interface OpenContext {
  /** The key named by the call, once found (also for a call refused later: its log shows the refusal). */
  key: { id: number; tenantId: number; appId: string } | null;
  authenticated: boolean;
  reason: string | null;
  ip: string;
  /** The raw body, for its hash. */
  rawBody: Buffer | undefined;
  jobId: string | null;
  newJob: boolean;
  testPrint: boolean;
  startedAt: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    open: OpenContext | null;
  }
}

export interface OpenAuthOptions {
  clockWindowS: number;
  /** Calls per key per second. */
  rateLimit: number;
  /** Proxies whose X-Forwarded-For is believed (addresses or CIDR blocks); otherwise the socket's address counts. */
  trustedProxies: string[];
  /** Signs the marker of the console's own test print (which may come from outside the key's allow-list). */
  consoleSecret: string;
}

/** The marker header of a test print the console sends through the open API on the user's behalf. */
export const TEST_PRINT_HEADER = 'x-cpc-console-test';

const refuse = (reason: OpenAuthReason, msg: string, extra: Record<string, unknown> = {}) => new AppError(401, msg, { reason, ...extra });
const unmap = (ip: string) => (ip.startsWith('::ffff:') && net.isIPv4(ip.slice(7)) ? ip.slice(7) : ip);

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
 * The open API's signature check (docs/open-api.md): headers present and well formed → the key exists and is
 * active → the caller's address is allowed → the timestamp is within the window → the HMAC matches → then, in
 * one statement shared by every node, the key's calls this second are counted (429 over the limit) and the
 * nonce is recorded (401 when seen before). A refused call never reaches a handler.
 */
export class OpenAuth {
  private proxies: net.BlockList;

  constructor(
    private db: Db,
    private opts: OpenAuthOptions,
  ) {
    this.proxies = blockList(opts.trustedProxies);
  }

  /** The caller's address: the socket's, or the last address a trusted proxy put in X-Forwarded-For. */
  clientIp(req: FastifyRequest): string {
    let ip = unmap(req.raw.socket?.remoteAddress ?? req.ip);
    const xff = req.headers['x-forwarded-for'];
    if (xff && allows(this.proxies, ip)) {
      const hops = (Array.isArray(xff) ? xff.join(',') : xff).split(',').map((s) => unmap(s.trim())).filter((s) => net.isIP(s));
      while (hops.length && allows(this.proxies, ip)) ip = hops.pop()!;
    }
    return ip;
  }

  testPrintMarker(nonce: string): string {
    return createHmac('sha256', this.opts.consoleSecret).update(`test-print:${nonce}`).digest('hex');
  }

  async authenticate(req: FastifyRequest, ctx: OpenContext): Promise<void> {
    const h = req.headers;
    const value = (name: string) => {
      const v = h[name];
      return typeof v === 'string' ? v.trim() : undefined;
    };
    const appId = value(OPEN_HEADERS.appId);
    const timestamp = value(OPEN_HEADERS.timestamp);
    const nonce = value(OPEN_HEADERS.nonce);
    const signature = value(OPEN_HEADERS.signature);
    const missing = Object.values(OPEN_HEADERS).filter((n) => !value(n));
    if (missing.length) throw refuse('missing_headers', `signature headers missing: ${missing.join(', ')}`, { missing });
    if (!/^\d{1,12}$/.test(timestamp!)) throw refuse('malformed_header', `${OPEN_HEADERS.timestamp} must be Unix time in seconds`);
    if (!NONCE_RULE.test(nonce!)) throw refuse('malformed_header', `${OPEN_HEADERS.nonce} must be 8-64 letters, digits, _ or -`);
    if (!/^[0-9a-fA-F]{64}$/.test(signature!)) throw refuse('malformed_header', `${OPEN_HEADERS.signature} must be 64 hex digits`);

    const key = await this.db.selectFrom('app_keys').select(['id', 'tenant_id', 'app_id', 'secret', 'state', 'ip_allow']).where('app_id', '=', appId!).executeTakeFirst();
    if (!key) throw refuse('unknown_app', `unknown app id ${appId}`);
    ctx.key = { id: key.id, tenantId: key.tenant_id, appId: key.app_id };
    if (key.state !== 'active') throw refuse('app_disabled', 'this app key is disabled');

    const marker = value(TEST_PRINT_HEADER);
    ctx.testPrint = !!marker && signatureMatches(this.testPrintMarker(nonce!), marker);
    if (key.ip_allow.length && !ctx.testPrint && !allows(blockList(key.ip_allow), ctx.ip)) {
      throw refuse('ip_not_allowed', `calls from ${ctx.ip} are not allowed for this key`);
    }
    const skew = Math.floor(Date.now() / 1000) - Number(timestamp);
    if (Math.abs(skew) > this.opts.clockWindowS) {
      throw refuse('stale_timestamp', `the timestamp is ${Math.abs(skew)} s ${skew > 0 ? 'old' : 'ahead'}; at most ${this.opts.clockWindowS} s either way`);
    }
    const q = req.url.indexOf('?');
    const expected = openSignature(key.secret, {
      method: req.method,
      path: q < 0 ? req.url : req.url.slice(0, q),
      query: q < 0 ? '' : req.url.slice(q + 1),
      timestamp: timestamp!,
      nonce: nonce!,
      bodySha256: sha256Hex(ctx.rawBody),
    });
    if (!signatureMatches(expected, signature!)) throw refuse('bad_signature', 'the signature does not match: see docs/open-api.md for the string to sign');

    // Counted and recorded on every node's shared tables in one round trip. The commit is asynchronous (no wait
    // for the disk): at worst a PostgreSQL crash forgets the last fraction of a second of nonces and counts.
    const windowS = Math.floor(Date.now() / 1000);
    const expiresAt = new Date((Math.max(Number(timestamp), windowS) + this.opts.clockWindowS + 60) * 1000);
    const { rows } = await sql<{ hits: number; fresh: boolean }>`
      WITH r AS (
        INSERT INTO open_rate (app_key_id, window_s, hits) VALUES (${key.id}, ${windowS}, 1)
        ON CONFLICT (app_key_id, window_s) DO UPDATE SET hits = open_rate.hits + 1
        RETURNING hits
      ), n AS (
        INSERT INTO open_nonces (app_key_id, nonce, expires_at)
        SELECT ${key.id}, ${nonce}, ${expiresAt} FROM r WHERE r.hits <= ${this.opts.rateLimit}
        ON CONFLICT DO NOTHING
        RETURNING 1
      )
      SELECT r.hits, EXISTS (SELECT 1 FROM n) AS fresh, set_config('synchronous_commit', 'off', true) AS _ FROM r`.execute(this.db);
    const { hits, fresh } = rows[0];
    if (hits > this.opts.rateLimit) {
      throw new AppError(429, `too many calls: at most ${this.opts.rateLimit} per second for this key`, { reason: RATE_LIMITED_REASON, limit: this.opts.rateLimit }, { 'retry-after': '1' });
    }
    if (!fresh) throw refuse('nonce_reused', 'this nonce was used before: every call needs a new one');
    ctx.authenticated = true;
  }

  /** Forgets expired nonces and old counters (any node; idempotent). */
  async prune(): Promise<void> {
    await sql`DELETE FROM open_nonces WHERE expires_at < now()`.execute(this.db);
    await sql`DELETE FROM open_rate WHERE window_s < extract(epoch FROM now())::bigint - 60`.execute(this.db);
  }
}
