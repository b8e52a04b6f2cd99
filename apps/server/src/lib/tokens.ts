import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { AppError } from './app-error.ts';

export interface AccessClaims {
  userId: number;
  tenantId: number;
  sessionId: string;
}

/** Tokens whose signature was checked, kept at most (a console's token is checked once per process, not per call). */
const VERIFIED_MAX = 2_000;

/**
 * Short-lived bearer tokens (HS256). Expired → 402 so the console refreshes; anything else invalid → 401.
 *
 * A token whose signature checked out is remembered (the whole token, signature included, with its claims and
 * expiry) until it expires or `VERIFIED_MAX` newer ones push it out (every token lives as long, so the oldest
 * remembered is the first to expire): a console sends the same token with every call,
 * and the check runs on libuv's thread pool (WebCrypto), one hop between threads on every call's path (issue 17).
 * What the token grants is still read per call: the session behind it (`loadAuthUser`) can end at any time.
 */
export class AccessTokens {
  private key: Uint8Array;
  private verified = new Map<string, { claims: AccessClaims; expMs: number }>();
  constructor(
    secret: string,
    readonly ttlSeconds: number,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  sign(c: AccessClaims): Promise<string> {
    return new SignJWT({ tid: c.tenantId, sid: c.sessionId })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(c.userId))
      .setIssuedAt()
      .setJti(randomUUID())
      .setExpirationTime(`${this.ttlSeconds}s`)
      .sign(this.key);
  }

  async verify(token: string): Promise<AccessClaims> {
    const known = this.verified.get(token);
    if (known) {
      // jose's own rule: expired once now >= exp (in whole seconds)
      if (Date.now() < known.expMs) return known.claims;
      this.verified.delete(token);
    }
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'] });
      const userId = Number(payload.sub);
      if (!Number.isSafeInteger(userId) || typeof payload.tid !== 'number' || typeof payload.sid !== 'string') {
        throw new AppError(401, 'auth.tokenInvalid');
      }
      const claims = { userId, tenantId: payload.tid, sessionId: payload.sid };
      if (typeof payload.exp === 'number') this.remember(token, claims, payload.exp * 1000);
      return claims;
    } catch (e) {
      if (e instanceof joseErrors.JWTExpired) throw new AppError(402, 'http.402');
      if (e instanceof AppError) throw e;
      throw new AppError(401, 'auth.tokenInvalid');
    }
  }

  private remember(token: string, claims: AccessClaims, expMs: number): void {
    if (this.verified.size >= VERIFIED_MAX) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, { claims, expMs });
  }
}

export const newOpaqueToken = () => randomBytes(32).toString('base64url');
export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
