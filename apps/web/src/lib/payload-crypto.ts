/**
 * Browser side of payload encryption (SPEC §7, DESIGN §5); the server side is apps/server/src/plugins/payload-crypto.ts.
 *
 * - legacy: RSA-1024 PKCS#1 v1.5 with node-forge (loaded only for this scheme): the JSON body in 117-byte blocks
 *   under the public key; the response comes back in 128-byte blocks "encrypted" with the private key.
 * - modern: per request a fresh AES-256-GCM key, wrapped with RSA-OAEP-256 into `x-payload-key`; body and
 *   response are `base64(iv(12) ‖ ciphertext ‖ tag)` under that key. Needs WebCrypto, i.e. a secure context.
 *
 * A response is encrypted when it carries the `x-payload-crypto` header; its body is then `{ payload }`.
 * Crypto failures (400) come back in plain JSON.
 */
import type { PublicKeyResult } from '@cpc/contracts';
import { CRYPTO_HEADER, CRYPTO_KEY_HEADER, LEGACY_CIPHER_BLOCK, LEGACY_PLAIN_BLOCK } from '@cpc/contracts/constants';
import type * as Forge from 'node-forge';

export interface SealedRequest {
  /** Headers to add to the request, also when there is no body (they ask for an encrypted response). */
  headers: Record<string, string>;
  /** What to send instead of the body; undefined when the request has none. */
  body: { payload: string } | undefined;
  /** Decrypts the `payload` of the response to this request and parses its JSON. Throws when it can't. */
  open(payload: string): Promise<unknown>;
}

export interface PayloadCipher {
  scheme: 'legacy' | 'modern';
  /**
   * Encrypts one request. Call it again for every attempt: the server refuses a sealed request it has
   * already seen ('payload replayed'). `body` is the plain value (it is JSON-serialised here).
   */
  seal(body: unknown | undefined): Promise<SealedRequest>;
}

/** null when encryption is off: no public key, mock mode, or the server says 'off'. */
export async function createPayloadCipher(pk: PublicKeyResult): Promise<PayloadCipher | null> {
  if (!pk.publicKey || pk.mockServer || pk.scheme === 'off') return null;
  return pk.scheme === 'legacy' ? createLegacyCipher(pk.publicKey) : createModernCipher(pk.publicKey);
}

// ---------------------------------------------------------------------------------------------------------------
// bytes

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

function toBinary(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return text;
}

function fromBinary(text: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

const toBase64 = (bytes: Uint8Array) => btoa(toBinary(bytes));

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  try {
    return fromBinary(atob(text));
  } catch {
    throw new Error('encrypted payload is not base64');
  }
}

function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** The body as UTF-8 JSON. Refuses what JSON can't carry instead of sending `{}`. */
function serialise(body: unknown): Uint8Array<ArrayBuffer> {
  if (
    (typeof FormData !== 'undefined' && body instanceof FormData) ||
    (typeof Blob !== 'undefined' && body instanceof Blob) ||
    (typeof URLSearchParams !== 'undefined' && body instanceof URLSearchParams) ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body)
  ) {
    throw new TypeError('payload encryption takes a JSON body; send uploads and binary bodies unencrypted');
  }
  const json = JSON.stringify(body);
  if (json === undefined) throw new TypeError('payload encryption takes a JSON body');
  return encoder.encode(json);
}

/** Decrypts, then parses UTF-8 JSON; any failure becomes one clear error. */
async function opened(decrypt: () => Promise<Uint8Array>): Promise<unknown> {
  try {
    return JSON.parse(decoder.decode(await decrypt()));
  } catch (cause) {
    throw new Error('encrypted response could not be decrypted', { cause });
  }
}

function pemBody(pem: string): Uint8Array<ArrayBuffer> {
  const match = /-----BEGIN PUBLIC KEY-----([\s\S]+?)-----END PUBLIC KEY-----/.exec(pem);
  if (!match?.[1]) throw new Error('publicKey is not an SPKI PEM public key');
  return fromBase64(match[1].replace(/\s+/g, ''));
}

// ---------------------------------------------------------------------------------------------------------------
// legacy

type RsaDecrypt = (encrypted: string, key: Forge.pki.rsa.PublicKey, pub: true) => string;

async function createLegacyCipher(pem: string): Promise<PayloadCipher> {
  const forgeModule = await import('node-forge');
  const forge = (forgeModule.default ?? forgeModule) as typeof Forge;
  const publicKey = forge.pki.publicKeyFromPem(pem);
  if (Math.ceil(publicKey.n.bitLength() / 8) !== LEGACY_CIPHER_BLOCK) {
    throw new Error('the legacy payload scheme needs an RSA-1024 public key');
  }
  // Public-key decryption of type-1 blocks: in forge, not in its typings.
  const rsaDecrypt = (forge.pki.rsa as unknown as { decrypt: RsaDecrypt }).decrypt;

  const encrypt = (plain: Uint8Array): string => {
    const blocks: Uint8Array[] = [];
    let offset = 0;
    do {
      const block = toBinary(plain.subarray(offset, offset + LEGACY_PLAIN_BLOCK));
      blocks.push(fromBinary(publicKey.encrypt(block, 'RSAES-PKCS1-V1_5')));
      offset += LEGACY_PLAIN_BLOCK;
    } while (offset < plain.length);
    return toBase64(concat(blocks));
  };

  const decrypt = (payload: string): Uint8Array => {
    const bytes = fromBase64(payload);
    if (bytes.length === 0 || bytes.length % LEGACY_CIPHER_BLOCK !== 0) {
      throw new Error('encrypted payload is not a whole number of RSA blocks');
    }
    const blocks: Uint8Array[] = [];
    for (let offset = 0; offset < bytes.length; offset += LEGACY_CIPHER_BLOCK) {
      const block = toBinary(bytes.subarray(offset, offset + LEGACY_CIPHER_BLOCK));
      blocks.push(fromBinary(rsaDecrypt(block, publicKey, true)));
    }
    return concat(blocks);
  };

  return {
    scheme: 'legacy',
    async seal(body) {
      return {
        headers: { [CRYPTO_HEADER]: 'legacy' },
        body: body === undefined ? undefined : { payload: encrypt(serialise(body)) },
        async open(payload) {
          return opened(async () => decrypt(payload));
        },
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// modern

const OAEP = { name: 'RSA-OAEP', hash: 'SHA-256' } as const;
const IV_BYTES = 12;

async function createModernCipher(pem: string): Promise<PayloadCipher> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) {
    throw new Error('payload encryption needs WebCrypto: serve the console over HTTPS (or localhost)');
  }
  const publicKey = await subtle.importKey('spki', pemBody(pem), OAEP, false, ['wrapKey']);

  return {
    scheme: 'modern',
    async seal(body) {
      const key = await subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, ['encrypt', 'decrypt']);
      const wrapped = new Uint8Array(await subtle.wrapKey('raw', key, publicKey, OAEP));

      let sealedBody: SealedRequest['body'];
      if (body !== undefined) {
        const iv = globalThis.crypto.getRandomValues(new Uint8Array(IV_BYTES));
        const cipher = new Uint8Array(await subtle.encrypt({ name: 'AES-GCM', iv }, key, serialise(body)));
        sealedBody = { payload: toBase64(concat([iv, cipher])) };
      }

      return {
        headers: { [CRYPTO_HEADER]: 'modern', [CRYPTO_KEY_HEADER]: toBase64(wrapped) },
        body: sealedBody,
        async open(payload) {
          return opened(async () => {
            const bytes = fromBase64(payload);
            if (bytes.length < IV_BYTES + 16) throw new Error('encrypted payload is too short');
            const iv = bytes.subarray(0, IV_BYTES);
            return new Uint8Array(await subtle.decrypt({ name: 'AES-GCM', iv }, key, bytes.subarray(IV_BYTES)));
          });
        },
      };
    },
  };
}
