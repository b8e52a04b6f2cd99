// @vitest-environment node
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRYPTO_HEADER, CRYPTO_KEY_HEADER, LEGACY_CIPHER_BLOCK } from '@cpc/contracts';
import payloadCrypto, {
  generateRsaKeyPair,
  legacyDecryptPrivate,
  legacyDecryptPublic,
  legacyEncryptPrivate,
  legacyEncryptPublic,
  modernCreateKey,
  modernDecrypt,
  modernEncrypt,
  modernImportPrivateKey,
  modernImportPublicKey,
  modernUnwrapKey,
  type PayloadCryptoOptions,
  type RsaKeyPairPem,
} from './payload-crypto.ts';

const CHINESE = '云打印控制台：打印机离线，请检查网络连接后重试。';
const TEXTS: Record<string, string> = {
  empty: '',
  ascii: 'hello',
  'exactly one block (117 bytes)': 'x'.repeat(117),
  'one byte past a block': 'x'.repeat(118),
  'Chinese, multi-block': CHINESE.repeat(12),
  // 3-byte characters straddle every block boundary
  'Chinese straddling blocks': 'a' + '打'.repeat(200),
  'emoji and JSON': JSON.stringify({ name: '张三', note: '🖨️ ok', list: Array.from({ length: 50 }, (_, i) => i) }),
};

let legacyKeys: RsaKeyPairPem;
let modernKeys: RsaKeyPairPem;
const dirs: string[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'payload-crypto-'));
  dirs.push(dir);
  return dir;
}

beforeAll(async () => {
  [legacyKeys, modernKeys] = await Promise.all([generateRsaKeyPair(1024), generateRsaKeyPair(2048)]);
});

afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('legacy helpers (RSA-1024 PKCS#1 v1.5 blocks)', () => {
  it.each(Object.entries(TEXTS))('round-trips %s both ways', (_name, text) => {
    const toServer = legacyEncryptPublic(text, legacyKeys.publicKeyPem);
    const blocks = Math.max(1, Math.ceil(Buffer.byteLength(text) / 117));
    expect(Buffer.from(toServer, 'base64').length).toBe(blocks * LEGACY_CIPHER_BLOCK);
    expect(legacyDecryptPrivate(toServer, legacyKeys.privateKeyPem).toString('utf8')).toBe(text);

    const toClient = legacyEncryptPrivate(text, legacyKeys.privateKeyPem);
    expect(Buffer.from(toClient, 'base64').length).toBe(blocks * LEGACY_CIPHER_BLOCK);
    expect(legacyDecryptPublic(toClient, legacyKeys.publicKeyPem).toString('utf8')).toBe(text);
  });

  it.each([
    ['not base64', '!!!'],
    ['not whole blocks', Buffer.alloc(100, 1).toString('base64')],
    ['random blocks', Buffer.alloc(256, 7).toString('base64')],
    ['empty', ''],
  ])('refuses %s with a 400 error', (_name, payload) => {
    expect(() => legacyDecryptPrivate(payload, legacyKeys.privateKeyPem)).toThrow(
      expect.objectContaining({ statusCode: 400, message: 'payload could not be decrypted' }),
    );
  });
});

describe('modern helpers (RSA-OAEP-256 + AES-256-GCM)', () => {
  it.each(Object.entries(TEXTS))('round-trips %s both ways', async (_name, text) => {
    const { key: clientKey, wrappedKey } = await modernCreateKey(await modernImportPublicKey(modernKeys.publicKeyPem));
    const serverKey = await modernUnwrapKey(wrappedKey, await modernImportPrivateKey(modernKeys.privateKeyPem));

    const request = await modernEncrypt(clientKey, text);
    expect(Buffer.from(request, 'base64').length).toBe(12 + Buffer.byteLength(text) + 16);
    expect((await modernDecrypt(serverKey, request)).toString('utf8')).toBe(text);

    const response = await modernEncrypt(serverKey, text);
    expect(response).not.toBe(request); // fresh IV
    expect((await modernDecrypt(clientKey, response)).toString('utf8')).toBe(text);
  });

  it('refuses a tampered payload, a payload under another key and a foreign wrapped key', async () => {
    const publicKey = await modernImportPublicKey(modernKeys.publicKeyPem);
    const privateKey = await modernImportPrivateKey(modernKeys.privateKeyPem);
    const a = await modernCreateKey(publicKey);
    const b = await modernCreateKey(publicKey);
    const sealed = Buffer.from(await modernEncrypt(a.key, '{"a":1}'), 'base64');
    sealed[sealed.length - 1] ^= 1;
    const rejected = expect.objectContaining({ statusCode: 400 });

    await expect(modernDecrypt(a.key, sealed.toString('base64'))).rejects.toThrow(rejected);
    await expect(modernDecrypt(b.key, await modernEncrypt(a.key, '{}'))).rejects.toThrow(rejected);
    await expect(modernDecrypt(a.key, 'AAAA')).rejects.toThrow(rejected);
    const foreign = await modernCreateKey(await modernImportPublicKey((await generateRsaKeyPair(2048)).publicKeyPem));
    await expect(modernUnwrapKey(foreign.wrappedKey, privateKey)).rejects.toThrow(rejected);
  });
});

// ---------------------------------------------------------------------------------------------------------------

interface Envelope {
  code: number;
  msg: string;
  data: unknown;
}

async function buildApp(
  options: Partial<PayloadCryptoOptions> & Pick<PayloadCryptoOptions, 'scheme'>,
): Promise<FastifyInstance> {
  const app = Fastify();
  // Stand-in for the app's error handler: statusCode → the envelope.
  app.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
    const code = error.statusCode ?? 500;
    return reply.status(code).send({ code, msg: error.message, data: null });
  });
  await app.register(payloadCrypto, { keyDir: await tempDir(), ...options });
  app.post('/echo', async (request) => ({ code: 200, msg: 'ok', data: { seen: request.body } }));
  app.post('/exempt/hook', async (request) => ({ code: 200, msg: 'ok', data: request.body }));
  app.get('/hello', async () => ({ code: 200, msg: 'ok', data: { greeting: '你好' } }));
  app.post('/boom', async () => {
    throw Object.assign(new Error('nope'), { statusCode: 403 });
  });
  await app.ready();
  return app;
}

interface Sealed {
  headers: Record<string, string>;
  payload: { payload: string } | undefined;
  open(payload: string): Promise<unknown>;
}

const GARBLED_MESSAGES = [
  'payload could not be decrypted',
  'encrypted body must be JSON { payload }',
  `${CRYPTO_KEY_HEADER} header missing`,
];

const BODY = {
  title: CHINESE.repeat(8),
  items: Array.from({ length: 30 }, (_, i) => ({ id: i, name: `打印机-${i}` })),
};

describe.each(['legacy', 'modern'] as const)('plugin, scheme %s', (scheme) => {
  let app: FastifyInstance;
  let publicKeyPem: string;

  /** What the browser does, written with the server helpers. */
  async function seal(body: unknown | undefined, pem = publicKeyPem): Promise<Sealed> {
    const publicKeyPem = pem;
    if (scheme === 'legacy') {
      return {
        headers: { [CRYPTO_HEADER]: 'legacy' },
        payload: body === undefined ? undefined : { payload: legacyEncryptPublic(JSON.stringify(body), publicKeyPem) },
        open: async (payload: string) =>
          JSON.parse(legacyDecryptPublic(payload, publicKeyPem).toString('utf8')) as unknown,
      };
    }
    const { key, wrappedKey } = await modernCreateKey(await modernImportPublicKey(publicKeyPem));
    return {
      headers: { [CRYPTO_HEADER]: 'modern', [CRYPTO_KEY_HEADER]: wrappedKey },
      payload: body === undefined ? undefined : { payload: await modernEncrypt(key, JSON.stringify(body)) },
      open: async (payload: string) => JSON.parse((await modernDecrypt(key, payload)).toString('utf8')) as unknown,
    };
  }

  beforeAll(async () => {
    app = await buildApp({ scheme, exempt: (url) => url.startsWith('/exempt/') });
    publicKeyPem = app.payloadCrypto.publicKeyPem;
  });
  afterAll(() => app.close());

  it('publishes its scheme and public key', () => {
    expect(app.payloadCrypto.scheme).toBe(scheme);
    expect(publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
  });

  it('decrypts the request for the handler and encrypts the response (multi-block, Chinese)', async () => {
    const sealed = await seal(BODY);
    const response = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: sealed.headers,
      payload: sealed.payload,
    });

    expect(response.statusCode).toBe(200);
    expect(response.headers[CRYPTO_HEADER]).toBe(scheme);
    const body = response.json<{ payload: string }>();
    expect(Object.keys(body)).toEqual(['payload']);
    expect(await sealed.open(body.payload)).toEqual({ code: 200, msg: 'ok', data: { seen: BODY } });
  });

  it('encrypts the response of a GET that only sends the header', async () => {
    const sealed = await seal(undefined);
    const response = await app.inject({ method: 'GET', url: '/hello', headers: sealed.headers });

    expect(response.statusCode).toBe(200);
    expect(response.headers[CRYPTO_HEADER]).toBe(scheme);
    expect(await sealed.open(response.json<{ payload: string }>().payload)).toEqual({
      code: 200,
      msg: 'ok',
      data: { greeting: '你好' },
    });
  });

  it('encrypts error envelopes raised by handlers', async () => {
    const sealed = await seal({});
    const response = await app.inject({
      method: 'POST',
      url: '/boom',
      headers: sealed.headers,
      payload: sealed.payload,
    });

    expect(response.statusCode).toBe(403);
    expect(await sealed.open(response.json<{ payload: string }>().payload)).toEqual({
      code: 403,
      msg: 'nope',
      data: null,
    });
  });

  it('answers plain requests without a body in plain', async () => {
    const response = await app.inject({ method: 'GET', url: '/hello' });
    expect(response.statusCode).toBe(200);
    expect(response.headers[CRYPTO_HEADER]).toBeUndefined();
    expect(response.json<Envelope>().data).toEqual({ greeting: '你好' });
  });

  it.each([
    ['JSON', 'application/json', JSON.stringify({ a: 1 })],
    ['text', 'text/plain', 'a=1'],
    ['form', 'application/x-www-form-urlencoded', 'a=1'],
  ])('refuses an unencrypted %s body', async (_name, contentType, payload) => {
    const response = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': contentType },
      payload,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json<Envelope>()).toMatchObject({ code: 400, msg: 'payload must be encrypted' });
  });

  it('lets an exempt route take an unencrypted body', async () => {
    const response = await app.inject({ method: 'POST', url: '/exempt/hook', payload: { a: 1 } });
    expect(response.statusCode).toBe(200);
    expect(response.json<Envelope>().data).toEqual({ a: 1 });
  });

  it('refuses the other scheme and unknown schemes', async () => {
    const other = scheme === 'legacy' ? 'modern' : 'legacy';
    for (const name of [other, 'rot13']) {
      const response = await app.inject({ method: 'GET', url: '/hello', headers: { [CRYPTO_HEADER]: name } });
      expect(response.statusCode).toBe(400);
      expect(response.json<Envelope>()).toMatchObject({ code: 400, msg: 'unsupported payload scheme' });
    }
  });

  it('refuses a replayed request', async () => {
    const sealed = await seal({ once: true });
    const request = { method: 'POST' as const, url: '/echo', headers: sealed.headers, payload: sealed.payload };
    expect((await app.inject(request)).statusCode).toBe(200);
    const replay = await app.inject(request);
    expect(replay.statusCode).toBe(400);
    expect(replay.json<Envelope>()).toMatchObject({ code: 400, msg: 'payload replayed' });
  });

  it('answers garbled payloads with 400 in plain JSON, never 500', async () => {
    const cases: Array<[string, Record<string, string>, unknown]> = [];
    const valid = await seal({ a: 1 });
    const bytes = Buffer.from(valid.payload!.payload, 'base64');
    bytes[bytes.length - 5] ^= 0xff;
    cases.push(['flipped byte', valid.headers, { payload: bytes.toString('base64') }]);
    cases.push(['not base64', (await seal({})).headers, { payload: '%%%not base64%%%' }]);
    cases.push(['truncated', (await seal({})).headers, { payload: bytes.subarray(0, 20).toString('base64') }]);
    cases.push(['random bytes', (await seal({})).headers, { payload: Buffer.alloc(256, 42).toString('base64') }]);
    cases.push(['empty payload', (await seal({})).headers, { payload: '' }]);
    cases.push(['no payload field', (await seal({})).headers, { data: 'x' }]);
    cases.push(['extra field', (await seal({})).headers, { payload: 'AAAA', x: 1 }]);
    cases.push(['not JSON', (await seal({})).headers, 'payload=abc']);
    if (scheme === 'legacy') {
      // valid padding, but not JSON: must look like any other failure
      cases.push(['encrypted non-JSON', valid.headers, { payload: legacyEncryptPublic('not json {', publicKeyPem) }]);
    } else {
      const { headers } = await seal({});
      cases.push(['missing key header', { [CRYPTO_HEADER]: 'modern' }, { payload: 'AAAA' }]);
      cases.push(['garbled key header', { ...headers, [CRYPTO_KEY_HEADER]: 'AAAA' }, { payload: 'AAAA' }]);
      cases.push(['key header not base64', { ...headers, [CRYPTO_KEY_HEADER]: '###' }, undefined]);
    }

    for (const [name, headers, payload] of cases) {
      const response = await app.inject({
        method: 'POST',
        url: '/echo',
        headers: { 'content-type': 'application/json', ...headers },
        payload: typeof payload === 'string' || payload === undefined ? payload : JSON.stringify(payload),
      });
      expect(response.statusCode, name).toBe(400);
      expect(response.headers[CRYPTO_HEADER], name).toBeUndefined();
      expect(response.json<Envelope>().code, name).toBe(400);
      expect(GARBLED_MESSAGES, name).toContain(response.json<Envelope>().msg);
    }
  });

  it('keeps the decrypted body inside the route body limit', async () => {
    const small = Fastify({ bodyLimit: 1024 });
    small.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) =>
      reply.status(error.statusCode ?? 500).send({ code: error.statusCode ?? 500, msg: error.message, data: null }),
    );
    await small.register(payloadCrypto, { scheme, keyDir: await tempDir() });
    small.post('/echo', async (request) => request.body);
    await small.ready();
    const sealed = await seal({ big: 'x'.repeat(5000) }, small.payloadCrypto.publicKeyPem);

    const response = await small.inject({
      method: 'POST',
      url: '/echo',
      headers: sealed.headers,
      payload: sealed.payload,
    });
    expect(response.statusCode).toBe(413);
    await small.close();
  });
});

describe('plugin keys and configuration', () => {
  it('creates the key pair once (mode 0600) and reuses it', async () => {
    const keyDir = await tempDir();
    const first = await buildApp({ scheme: 'modern', keyDir });
    const second = await buildApp({ scheme: 'modern', keyDir });
    expect(second.payloadCrypto.publicKeyPem).toBe(first.payloadCrypto.publicKeyPem);
    expect((await stat(join(keyDir, 'payload-modern.key.pem'))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(keyDir, 'payload-modern.pub.pem'), 'utf8')).toBe(first.payloadCrypto.publicKeyPem);
    await Promise.all([first.close(), second.close()]);
  });

  it('refuses to start with a key of the wrong size for the scheme', async () => {
    const keyDir = await tempDir();
    await writeFile(join(keyDir, 'payload-legacy.key.pem'), modernKeys.privateKeyPem, { mode: 0o600 });
    await expect(buildApp({ scheme: 'legacy', keyDir })).rejects.toThrow(/needs RSA-1024/);
  });

  it('with scheme off: no key, plain bodies pass, the header is refused', async () => {
    const app = await buildApp({ scheme: 'off' });
    expect(app.payloadCrypto).toEqual({ scheme: 'off', publicKeyPem: '' });

    const plain = await app.inject({ method: 'POST', url: '/echo', payload: { a: '中文' } });
    expect(plain.json<Envelope>().data).toEqual({ seen: { a: '中文' } });

    const refused = await app.inject({ method: 'GET', url: '/hello', headers: { [CRYPTO_HEADER]: 'modern' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json<Envelope>().msg).toBe('payload encryption is off');
    await app.close();
  });
});
