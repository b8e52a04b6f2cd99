import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { AppError } from '../plugins/errors.ts';

export interface AccessClaims {
  userId: number;
  tenantId: number;
  sessionId: string;
}

/** Short-lived bearer tokens (HS256). Expired → 402 so the console refreshes; anything else invalid → 401. */
export class AccessTokens {
  private key: Uint8Array;
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
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'] });
      const userId = Number(payload.sub);
      if (!Number.isSafeInteger(userId) || typeof payload.tid !== 'number' || typeof payload.sid !== 'string') {
        throw new AppError(401, 'auth.tokenInvalid');
      }
      return { userId, tenantId: payload.tid, sessionId: payload.sid };
    } catch (e) {
      if (e instanceof joseErrors.JWTExpired) throw new AppError(402, 'http.402');
      if (e instanceof AppError) throw e;
      throw new AppError(401, 'auth.tokenInvalid');
    }
  }
}

export const newOpaqueToken = () => randomBytes(32).toString('base64url');
export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
