import net from 'node:net';
import { createHash, createHmac } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import {
  NONCE_RULE,
  OPEN_HEADERS,
  OPEN_RATE_WINDOW_S,
  OPEN_REQUIRED_HEADERS,
  RATE_LIMITED_REASON,
  type OpenAuthReason,
} from '@cpc/contracts/open-api';
import type { Db } from '../../db/database.ts';
import type { WriteGate } from '../../lib/write-gate.ts';
import { AppError } from '../../plugins/errors.ts';
import type { MessageKey, ParamsArg } from '@cpc/contracts/messages';
import { openSignature, sha256Hex, signatureMatches } from './signature.ts';
import { GATE_CTES, OpenApiRepository, type CallCount, type Counted, type KeyRow } from './repository.ts';

/** What the header check (before the body is read) found, for the signature check after it. */
interface HeaderCheck {
  key: KeyRow;
  timestamp: string;
  nonce: string;
  signature: string;
  /** The X-CPC-Content-Sha256 header (lower case), when sent. */
  contentSha256: string | undefined;
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
  /**
   * The rate count and nonce of a call whose own write carries them (`verify` with `countWithWrite`): still to be
   * written, by that write (`gate`) or alone (`countPending`) before any other answer.
   */
  pendingCount: Count | null;
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

/** One call's rate count and nonce, for the signature's statement or the call's own write. */
interface Count extends CallCount {
  /** The key's row the checks passed on. */
  key: KeyRow;
  bodySha256: string;
}

const sha256Text = (s: string) => createHash('sha256').update(s).digest('hex');

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
 * its limit) and the nonce is recorded (401 when seen before). A refused call never reaches a handler — except
 * a submit, whose count and nonce its job's own statement carries (`gate`, one statement and one durable commit):
 * its handler renders the content first, writes nothing unless the count passed, and says a refusal before any
 * other error of its own.
 */
export class OpenAuth {
  /**
   * Key rows by app id, read at most once a second per node for the checks before the body. Never trusted
   * alone: the call's count reads the row again in its own statement and, when it changed (a rotation,
   * disabling, a new allow-list or limit, on any node), every check runs again on the fresh row — so an old
   * secret fails from the next call on, everywhere.
   */
  private keys = new Map<string, { row: KeyRow; at: number }>();

  private repo: OpenApiRepository;

  constructor(
    db: Db,
    private opts: OpenAuthOptions,
  ) {
    this.repo = new OpenApiRepository(db);
  }

  /** One call's rate count and nonce, and the key's row as it is now (OpenApiRepository.countCall). */
  private countOne(c: Count): Promise<Counted> {
    return this.repo.countCall(c);
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
    const row = await this.repo.findKey(appId);
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
   * The checks that need the body (preValidation), then the rate count and the nonce in one statement shared by
   * every node, which also reads the key's row as it is now. `countWithWrite`: the call's own write carries
   * them instead (`gate`: a submit's job row, one statement and one durable commit for both), or, when the call
   * ends before it, `countPending` — so a refusal (429, a replayed nonce) always comes first and every answered
   * call's nonce is durable before its answer.
   */
  async verify(req: FastifyRequest, ctx: OpenContext, opts: { countWithWrite: boolean }): Promise<void> {
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
    // The counter is an unlogged table (a crash only resets a window's count); the nonce is durable before any
    // answer, so a crash of PostgreSQL never forgets one and never takes a replay.
    const windowS = Math.floor(Date.now() / 1000 / OPEN_RATE_WINDOW_S) * OPEN_RATE_WINDOW_S;
    const count: Count = {
      keyId: c.key.id,
      windowS,
      nonce: c.nonce,
      expiresAt: new Date((Math.max(Number(c.timestamp), windowS) + this.opts.clockWindowS + 60) * 1000),
      limit: c.key.rate_limit ?? this.opts.rateLimit,
      key: c.key,
      bodySha256,
    };
    // (a call whose write carries its count is refused by that write when it must be)
    ctx.authenticated = true;
    if (opts.countWithWrite) ctx.pendingCount = count;
    else this.judge(req, ctx, count, await this.countOne(count));
  }

  /** The call judged on its count: the key as it is now (every check again if it changed), the limit, the nonce. */
  private judge(req: FastifyRequest, ctx: OpenContext, count: Count, { hits, fresh, key: now }: Counted): void {
    const c = ctx.headers!;
    if (!now || keyVersion(now) !== keyVersion(c.key)) {
      // the key changed since this node read it (on any node): every check again on the row as it is now
      if (!now) {
        this.keys.delete(c.key.app_id);
        throw unknownApp(c.key.app_id);
      }
      this.remember(now);
      this.recheck(req, ctx, now, count.bodySha256);
    }
    const nowLimit = c.key.rate_limit ?? this.opts.rateLimit;
    if (hits > nowLimit) {
      const retryAfterS = Math.max(1, Math.ceil(((count.windowS + OPEN_RATE_WINDOW_S) * 1000 - Date.now()) / 1000));
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
  }

  /** A pending count (`verify` with `countWithWrite`) made alone, durably; throws the call's refusal. */
  async countPending(req: FastifyRequest, ctx: OpenContext): Promise<void> {
    const count = ctx.pendingCount;
    if (!count) return;
    ctx.pendingCount = null;
    this.judge(req, ctx, count, await this.countOne(count));
  }

  /** The pending count of a call, for its write to carry (WriteGate); undefined when there is none. */
  gate(req: FastifyRequest, ctx: OpenContext): WriteGate | undefined {
    const count = ctx.pendingCount;
    if (!count) return undefined;
    const k = count.key;
    return {
      values: {
        key_id: count.keyId,
        window_s: count.windowS,
        nonce: count.nonce,
        expires_at: count.expiresAt.toISOString(),
        lim: count.limit,
        secret_sha: sha256Text(k.secret),
        state: k.state,
        ip_allow: k.ip_allow,
        rate_limit: k.rate_limit,
      },
      ctes: GATE_CTES,
      settle: (answer) => {
        if (ctx.pendingCount !== count) throw new Error('the call was counted already');
        ctx.pendingCount = null;
        this.judge(req, ctx, count, answer as Counted);
        return !answer.pass;
      },
      countAlone: () => this.countPending(req, ctx),
    };
  }

  /** Forgets expired nonces and old counters (any node; idempotent). */
  async prune(): Promise<void> {
    await this.repo.pruneCounts();
  }
}
