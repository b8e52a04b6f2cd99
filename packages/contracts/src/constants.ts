/**
 * Plain values of the contracts that the console needs at run time. This module imports no zod, so the
 * browser can take them from `@cpc/contracts/constants` without bundling zod (the schemas beside them are
 * the server's business; the console only needs their types). The schema modules re-export these.
 */

/** Codes the console treats as success (SPEC §8: 200 or 0, number or string). */
export const SUCCESS_CODES: ReadonlyArray<number | string> = [200, 0, '200', '0'];

/** Field of the login / refresh result that carries the access token. */
export const TOKEN_NAME = 'token';

/** Seconds before another SMS code may be sent to the same number. */
export const SMS_RESEND_SECONDS = 60;

/** Identity authentication status of a tenant (DESIGN §3). */
export const AUTH_STATUS = { notSubmitted: 0, authenticated: 1, waiting: 2, failed: 3 } as const;
export type AuthStatus = (typeof AUTH_STATUS)[keyof typeof AUTH_STATUS];

export const UPLOAD_MAX_BYTES = 10 * 1024 * 1024;
export const UPLOAD_ACCEPT = ['image/jpeg', 'image/png'];

/** Header naming the scheme a request body was encrypted with; the response is then encrypted the same way. */
export const CRYPTO_HEADER = 'x-payload-crypto';
/** modern: the per-request AES-256-GCM key wrapped with RSA-OAEP-256, base64. */
export const CRYPTO_KEY_HEADER = 'x-payload-key';

/** legacy: RSA-1024 PKCS#1 v1.5 — plaintext in 117-byte blocks, ciphertext in 128-byte blocks. */
export const LEGACY_PLAIN_BLOCK = 117;
export const LEGACY_CIPHER_BLOCK = 128;
