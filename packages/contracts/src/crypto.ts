import { z } from 'zod';

/** Payload encryption (SPEC §7, DESIGN §5). The request layer and the server plugin agree on these. */
export const PAYLOAD_SCHEMES = ['off', 'legacy', 'modern'] as const;
export type PayloadScheme = (typeof PAYLOAD_SCHEMES)[number];

export const publicKeyResult = z.object({
  /** PEM (SPKI) public key; empty when encryption is off. */
  publicKey: z.string(),
  mockServer: z.boolean(),
  scheme: z.enum(PAYLOAD_SCHEMES),
});
export type PublicKeyResult = z.infer<typeof publicKeyResult>;

/** Header naming the scheme a request body was encrypted with; the response is then encrypted the same way. */
export const CRYPTO_HEADER = 'x-payload-crypto';
/** modern: the per-request AES-256-GCM key wrapped with RSA-OAEP-256, base64. */
export const CRYPTO_KEY_HEADER = 'x-payload-key';

/** legacy: RSA-1024 PKCS#1 v1.5 — plaintext in 117-byte blocks, ciphertext in 128-byte blocks. */
export const LEGACY_PLAIN_BLOCK = 117;
export const LEGACY_CIPHER_BLOCK = 128;

/** Body of an encrypted request or response: `{ payload }`, base64 ciphertext (modern: iv ‖ ciphertext ‖ tag). */
export const encryptedBody = z.object({ payload: z.string() }).strict();
