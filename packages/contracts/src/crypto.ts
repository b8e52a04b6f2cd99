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

export { CRYPTO_HEADER, CRYPTO_KEY_HEADER, LEGACY_CIPHER_BLOCK, LEGACY_PLAIN_BLOCK } from './constants.ts';

/** Body of an encrypted request or response: `{ payload }`, base64 ciphertext (modern: iv ‖ ciphertext ‖ tag). */
export const encryptedBody = z.object({ payload: z.string() }).strict();
