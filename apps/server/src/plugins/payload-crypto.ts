/**
 * Payload encryption (SPEC §7, DESIGN §5): a layer between the transport and the handlers.
 *
 * - legacy: RSA-1024 PKCS#1 v1.5. Requests are encrypted with the public key in 117-byte blocks (128 bytes each
 *   out), responses with the private key (type-1 padding) in the same blocks; `{ payload: base64(blocks) }`.
 * - modern: the client wraps a fresh AES-256-GCM key with RSA-OAEP-256 (header `x-payload-key`); the body is
 *   `{ payload: base64(iv(12) ‖ ciphertext ‖ tag) }` and the response is sealed with the same key, a fresh IV.
 *
 * A request opts in with the `x-payload-crypto` header; its response is then encrypted too and carries the same
 * header. Crypto failures answer 400 in plain JSON (the client may not hold a usable key).
 */
import {
  constants,
  createHash,
  createPrivateKey,
  createPublicKey,
  privateEncrypt,
  publicDecrypt,
  publicEncrypt,
  KeyObject,
  randomBytes,
} from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import forge from 'node-forge';
import {
  CRYPTO_HEADER,
  CRYPTO_KEY_HEADER,
  LEGACY_CIPHER_BLOCK,
  LEGACY_PLAIN_BLOCK,
  type PayloadScheme,
} from '@cpc/contracts';
import type { Db } from '../db/database.ts';
import { Periodic } from '../lib/periodic.ts';
import {
  MemoryReplayGuard,
  REPLAY_SWEEP_MS,
  SharedReplayGuard,
  loadOrCreateKeyPair,
  loadSharedKeyPair,
  type ReplayGuard,
} from './payload-keys.ts';

export {
  LEGACY_KEY_BITS,
  MODERN_KEY_BITS,
  MemoryReplayGuard,
  REPLAY_SWEEP_MS,
  REPLAY_WINDOW_S,
  SharedReplayGuard,
  generateRsaKeyPair,
  loadOrCreateKeyPair,
  loadSharedKeyPair,
  type ReplayGuard,
  type RsaKeyPairPem,
} from './payload-keys.ts';

const GCM_IV_BYTES = 12;
const GCM_TAG_BYTES = 16;

export interface PayloadCryptoOptions {
  scheme: PayloadScheme;
  /** Where the RSA key pair lives (created with mode 0600 when missing). */
  keyDir: string;
  /** URLs (with query string) that may send an unencrypted body, e.g. device callbacks. */
  exempt?: (url: string) => boolean;
  /** legacy only: largest decrypted request body. Each 117 bytes costs ~8 ms of pure-JS RSA. Default 64 KiB. */
  legacyMaxBytes?: number;
  /**
   * Where what requests carried is remembered against replays, shared by every node (SharedReplayGuard, swept
   * by a cluster-once job); without a database, this process's memory.
   */
  db?: Db;
}

export interface PayloadCryptoInfo {
  readonly scheme: PayloadScheme;
  /** SPKI PEM; empty when the scheme is off. */
  readonly publicKeyPem: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    payloadCrypto: PayloadCryptoInfo;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Errors

/** Plain Error with a statusCode: the app's error handler turns it into the `{ code, msg, data }` envelope. */
function httpError(statusCode: number, message: string): Error & { statusCode: number } {
  return Object.assign(new Error(message), { statusCode });
}

// One message for every decryption failure: telling padding errors from JSON errors would be a padding oracle.
const GARBLED = 'payload could not be decrypted';
const garbled = () => httpError(400, GARBLED);

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict base64 (Buffer.from silently skips bad characters). */
function decodeBase64(text: string): Buffer {
  if (!BASE64.test(text)) throw garbled();
  return Buffer.from(text, 'base64');
}

function toBuffer(plaintext: string | Uint8Array): Buffer {
  return typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : Buffer.from(plaintext);
}

// ---------------------------------------------------------------------------------------------------------------
// legacy: RSA-1024 PKCS#1 v1.5 blocks

function splitBlocks(bytes: Buffer, size: number): Buffer[] {
  const blocks: Buffer[] = [];
  let offset = 0;
  do {
    blocks.push(bytes.subarray(offset, offset + size));
    offset += size;
  } while (offset < bytes.length);
  return blocks;
}

function cipherBlocks(payload: string): Buffer[] {
  const bytes = decodeBase64(payload);
  if (bytes.length === 0 || bytes.length % LEGACY_CIPHER_BLOCK !== 0) throw garbled();
  return splitBlocks(bytes, LEGACY_CIPHER_BLOCK);
}

/** What the browser does: encrypt with the public key (type-2 padding), 117 bytes per block. */
export function legacyEncryptPublic(plaintext: string | Uint8Array, publicKey: string | KeyObject): string {
  const blocks = splitBlocks(toBuffer(plaintext), LEGACY_PLAIN_BLOCK).map((block) =>
    publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, block),
  );
  return Buffer.concat(blocks).toString('base64');
}

export type LegacyPrivateKey = forge.pki.rsa.PrivateKey;

/** node-forge, since Node 20 refuses PKCS#1 v1.5 private decryption (CVE-2023-46809). */
export function toLegacyPrivateKey(privateKey: string | KeyObject): LegacyPrivateKey {
  const key = typeof privateKey === 'string' ? createPrivateKey(privateKey) : privateKey;
  return forge.pki.privateKeyFromPem(key.export({ type: 'pkcs1', format: 'pem' }).toString());
}

function legacyDecryptBlock(block: Buffer, key: LegacyPrivateKey): Buffer {
  try {
    return Buffer.from(key.decrypt(block.toString('binary'), 'RSAES-PKCS1-V1_5'), 'binary');
  } catch {
    throw garbled();
  }
}

/** Server side of a request: decrypt 128-byte blocks with the private key. Throws a 400 error when garbled. */
export function legacyDecryptPrivate(payload: string, privateKey: string | KeyObject | LegacyPrivateKey): Buffer {
  const key =
    typeof privateKey === 'string' || privateKey instanceof KeyObject ? toLegacyPrivateKey(privateKey) : privateKey;
  return Buffer.concat(cipherBlocks(payload).map((block) => legacyDecryptBlock(block, key)));
}

/** Server side of a response: "encrypt" with the private key (type-1 padding), 117 bytes per block. */
export function legacyEncryptPrivate(plaintext: string | Uint8Array, privateKey: string | KeyObject): string {
  const blocks = splitBlocks(toBuffer(plaintext), LEGACY_PLAIN_BLOCK).map((block) =>
    privateEncrypt({ key: privateKey, padding: constants.RSA_PKCS1_PADDING }, block),
  );
  return Buffer.concat(blocks).toString('base64');
}

/** What the browser does with a response: decrypt 128-byte blocks with the public key. */
export function legacyDecryptPublic(payload: string, publicKey: string | KeyObject): Buffer {
  return Buffer.concat(
    cipherBlocks(payload).map((block) => {
      try {
        return publicDecrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, block);
      } catch {
        throw garbled();
      }
    }),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// modern: RSA-OAEP-256 wrapped AES-256-GCM key, WebCrypto

const subtle = globalThis.crypto.subtle;
const OAEP = { name: 'RSA-OAEP', hash: 'SHA-256' } as const;

function der(key: string | KeyObject, kind: 'public' | 'private'): Uint8Array<ArrayBuffer> {
  const object = typeof key !== 'string' ? key : kind === 'public' ? createPublicKey(key) : createPrivateKey(key);
  const bytes =
    kind === 'public'
      ? object.export({ type: 'spki', format: 'der' })
      : object.export({ type: 'pkcs8', format: 'der' });
  return new Uint8Array(bytes);
}

export function modernImportPublicKey(publicKey: string | KeyObject): Promise<CryptoKey> {
  return subtle.importKey('spki', der(publicKey, 'public'), OAEP, false, ['wrapKey']);
}

export function modernImportPrivateKey(privateKey: string | KeyObject): Promise<CryptoKey> {
  return subtle.importKey('pkcs8', der(privateKey, 'private'), OAEP, false, ['unwrapKey']);
}

/** What the browser does per request: a fresh AES-256-GCM key, wrapped for the `x-payload-key` header. */
export async function modernCreateKey(publicKey: CryptoKey): Promise<{ key: CryptoKey; wrappedKey: string }> {
  const key = await subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, ['encrypt', 'decrypt']);
  const wrapped = await subtle.wrapKey('raw', key, publicKey, OAEP);
  return { key, wrappedKey: Buffer.from(wrapped).toString('base64') };
}

export async function modernUnwrapKey(wrappedKey: string, privateKey: CryptoKey): Promise<CryptoKey> {
  const bytes = new Uint8Array(decodeBase64(wrappedKey));
  try {
    return await subtle.unwrapKey('raw', bytes, privateKey, OAEP, { name: 'AES-GCM', length: 256 }, false, [
      'encrypt',
      'decrypt',
    ]);
  } catch {
    throw garbled();
  }
}

export async function modernEncrypt(key: CryptoKey, plaintext: string | Uint8Array): Promise<string> {
  const iv = new Uint8Array(randomBytes(GCM_IV_BYTES));
  const sealed = await subtle.encrypt({ name: 'AES-GCM', iv }, key, new Uint8Array(toBuffer(plaintext)));
  return Buffer.concat([iv, new Uint8Array(sealed)]).toString('base64');
}

/** Throws a 400 error when the payload is malformed or fails authentication. */
export async function modernDecrypt(key: CryptoKey, payload: string): Promise<Buffer> {
  const bytes = new Uint8Array(decodeBase64(payload));
  if (bytes.length < GCM_IV_BYTES + GCM_TAG_BYTES) throw garbled();
  try {
    const plain = await subtle.decrypt(
      { name: 'AES-GCM', iv: bytes.subarray(0, GCM_IV_BYTES) },
      key,
      bytes.subarray(GCM_IV_BYTES),
    );
    return Buffer.from(plain);
  } catch {
    throw garbled();
  }
}

const digest = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest();

// ---------------------------------------------------------------------------------------------------------------
// Plugin

type RequestCrypto = { scheme: 'legacy' } | { scheme: 'modern'; key: CryptoKey };

const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

function hasBody(request: FastifyRequest): boolean {
  if (BODYLESS.has(request.method)) return false;
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) > 0);
}

function mediaType(contentType: unknown): string {
  return typeof contentType === 'string' ? (contentType.split(';')[0] ?? '').trim().toLowerCase() : '';
}

const isMultipart = (type: string) => type.startsWith('multipart/');
const isJson = (type: string) => type === 'application/json' || type.endsWith('+json');
/** Bodies that carry data in the clear and so must be encrypted; binary uploads are left to their routes. */
const needsEncryption = (type: string) =>
  type === '' || isJson(type) || type.startsWith('text/') || type === 'application/x-www-form-urlencoded';

/** Reads a stream up to `limit` bytes; past it, stops listening (the rest drains) and rejects with 413. */
function readBody(stream: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    const onData = (chunk: Buffer | string) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size > limit) {
        cleanup();
        reject(httpError(413, 'payload too large'));
        return;
      }
      chunks.push(buffer);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(Object.assign(error, { statusCode: 400 }));
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.resume();
  });
}

/** `{ payload: string }` and nothing else. */
function payloadOf(raw: Buffer): string {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw httpError(400, 'encrypted body must be JSON { payload }');
  }
  if (
    typeof body !== 'object' ||
    body === null ||
    Array.isArray(body) ||
    Object.keys(body).length !== 1 ||
    typeof (body as { payload?: unknown }).payload !== 'string'
  ) {
    throw httpError(400, 'encrypted body must be JSON { payload }');
  }
  return (body as { payload: string }).payload;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The decrypted body must be UTF-8 JSON; failures look like any other decryption failure (see GARBLED). */
function assertJson(plain: Buffer): void {
  try {
    JSON.parse(utf8.decode(plain));
  } catch {
    throw garbled();
  }
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

interface SchemeKeys {
  publicKeyPem: string;
  privateKey?: KeyObject;
  legacyKey?: LegacyPrivateKey;
  modernKey?: CryptoKey;
}

/** The scheme's key pair (shared by every node through the database when there is one), as the scheme uses it. */
async function schemeKeys(
  fastify: FastifyInstance,
  scheme: PayloadScheme,
  keyDir: string,
  db: Db | undefined,
): Promise<SchemeKeys> {
  if (scheme === 'off') return { publicKeyPem: '' };
  const warn = (message: string) => fastify.log.warn(message);
  const keys = db ? await loadSharedKeyPair(db, keyDir, scheme, warn) : await loadOrCreateKeyPair(keyDir, scheme, warn);
  return {
    publicKeyPem: keys.publicKeyPem,
    privateKey: keys.privateKey,
    ...(scheme === 'legacy'
      ? { legacyKey: toLegacyPrivateKey(keys.privateKey) }
      : { modernKey: await modernImportPrivateKey(keys.privateKey) }),
  };
}

/** Where replays are remembered: the database (with its sweep, once across the cluster), else this node's memory. */
function replayGuardOf(fastify: FastifyInstance, scheme: PayloadScheme, db: Db | undefined): ReplayGuard {
  const shared = db && scheme !== 'off' ? new SharedReplayGuard(db) : undefined;
  if (!shared) return new MemoryReplayGuard();
  const upkeep = new Periodic((err, job) => fastify.log.warn({ err }, `payload crypto: ${job} failed`), {
    locks: fastify.hasDecorator('clusterLocks') ? fastify.clusterLocks : undefined,
    scope: 'payload crypto',
  });
  fastify.addHook('onReady', async () =>
    upkeep.every(REPLAY_SWEEP_MS, 'replay sweep', () => shared.sweep(), 'cluster'),
  );
  fastify.addHook('onClose', () => upkeep.stop());
  return shared;
}

/** The body's plaintext, checked as UTF-8 JSON; a legacy body's blocks are admitted by the replay guard. */
async function decryptBody(
  raw: Buffer,
  context: RequestCrypto,
  plainLimit: number,
  legacyKey: LegacyPrivateKey | undefined,
  replays: ReplayGuard,
): Promise<Buffer> {
  const sealed = payloadOf(raw);
  let plain: Buffer;
  if (context.scheme === 'modern') {
    plain = await modernDecrypt(context.key, sealed);
  } else {
    const blocks = cipherBlocks(sealed);
    if (blocks.length * LEGACY_PLAIN_BLOCK > plainLimit + LEGACY_PLAIN_BLOCK) throw httpError(413, 'payload too large');
    const parts: Buffer[] = [];
    for (const [index, block] of blocks.entries()) {
      // forge is pure JS (~8 ms a block): let other requests through on long bodies
      if (index > 0 && index % 8 === 0) await yieldToLoop();
      parts.push(legacyDecryptBlock(block, legacyKey as LegacyPrivateKey));
    }
    plain = Buffer.concat(parts);
    if (!(await replays.admit(blocks.map((block) => digest(block))))) throw httpError(400, 'payload replayed');
  }
  assertJson(plain);
  return plain;
}

const payloadCryptoPlugin: FastifyPluginAsync<PayloadCryptoOptions> = async (fastify: FastifyInstance, options) => {
  const { scheme, keyDir, exempt = () => false, legacyMaxBytes = 64 * 1024, db } = options;
  if (scheme !== 'off' && scheme !== 'legacy' && scheme !== 'modern') {
    throw new Error(`payload crypto: unknown scheme ${String(scheme)}`);
  }
  const { publicKeyPem, privateKey, legacyKey, modernKey } = await schemeKeys(fastify, scheme, keyDir, db);
  fastify.decorate('payloadCrypto', { scheme, publicKeyPem } satisfies PayloadCryptoInfo);
  const contexts = new WeakMap<FastifyRequest, RequestCrypto>();
  const replays = replayGuardOf(fastify, scheme, db);

  fastify.addHook('onRequest', async (request) => {
    const header = request.headers[CRYPTO_HEADER];
    if (header === undefined) {
      if (
        scheme !== 'off' &&
        !request.is404 &&
        hasBody(request) &&
        needsEncryption(mediaType(request.headers['content-type'])) &&
        !exempt(request.url)
      ) {
        throw httpError(400, 'payload must be encrypted');
      }
      return;
    }
    if (scheme === 'off') throw httpError(400, 'payload encryption is off');
    if (typeof header !== 'string' || header.trim().toLowerCase() !== scheme) {
      throw httpError(400, 'unsupported payload scheme');
    }
    if (scheme === 'legacy') {
      contexts.set(request, { scheme });
      return;
    }
    const wrapped = request.headers[CRYPTO_KEY_HEADER];
    if (typeof wrapped !== 'string' || wrapped === '') throw httpError(400, `${CRYPTO_KEY_HEADER} header missing`);
    const key = await modernUnwrapKey(wrapped.trim(), modernKey as CryptoKey);
    if (!(await replays.admit([digest(wrapped.trim())]))) throw httpError(400, 'payload replayed');
    contexts.set(request, { scheme, key });
  });

  fastify.addHook('preParsing', async (request, _reply, payload) => {
    const context = contexts.get(request);
    if (!context || !hasBody(request) || isMultipart(mediaType(request.headers['content-type']))) return payload;
    try {
      const bodyLimit = request.routeOptions.bodyLimit ?? fastify.initialConfig.bodyLimit ?? 1024 * 1024;
      const plainLimit = context.scheme === 'legacy' ? Math.min(bodyLimit, legacyMaxBytes) : bodyLimit;
      // base64 (4/3), legacy blocks (128/117), GCM overhead and the JSON wrapper
      const raw = await readBody(payload, Math.ceil(plainLimit * 1.5) + 1024);
      const plain = await decryptBody(raw, context, plainLimit, legacyKey, replays);
      request.raw.headers['content-type'] = 'application/json; charset=utf-8';
      request.raw.headers['content-length'] = String(plain.length);
      delete request.raw.headers['transfer-encoding'];
      return Readable.from([plain], { objectMode: false });
    } catch (error) {
      contexts.delete(request); // answer the failure in plain JSON
      throw error;
    }
  });

  fastify.addHook('onSend', async (request, reply, payload) => {
    const context = contexts.get(request);
    if (!context || request.method === 'HEAD' || reply.statusCode === 204 || reply.statusCode === 304) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload; // streams and empty replies
    if (payload.length === 0 || !isJson(mediaType(reply.getHeader('content-type')))) return payload;

    const sealed =
      context.scheme === 'modern'
        ? await modernEncrypt(context.key, payload)
        : legacyEncryptPrivate(payload, privateKey as KeyObject);
    reply.header('content-type', 'application/json; charset=utf-8');
    reply.header(CRYPTO_HEADER, context.scheme);
    reply.removeHeader('content-length');
    return JSON.stringify({ payload: sealed });
  });
};

export const payloadCrypto = fp(payloadCryptoPlugin, { name: 'payload-crypto', fastify: '5.x' });
export default payloadCrypto;
