// @vitest-environment node
// WebCrypto and TextEncoder are the same in Node as in the browser; the server side runs here for real.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRYPTO_HEADER, CRYPTO_KEY_HEADER, type PublicKeyResult } from '@cpc/contracts';
import payloadCryptoPlugin, {
  generateRsaKeyPair,
  legacyDecryptPrivate,
  legacyEncryptPrivate,
  modernDecrypt,
  modernEncrypt,
  modernImportPrivateKey,
  modernUnwrapKey,
  type RsaKeyPairPem,
} from '../../../server/src/plugins/payload-crypto.ts';
import { createPayloadCipher, type PayloadCipher } from './payload-crypto.ts';

const BODIES: Record<string, unknown> = {
  small: { username: 'admin', password: 'secret' },
  Chinese: { title: '打印机离线通知', content: '请检查网络连接后重试。'.repeat(40) },
  'many blocks': { list: Array.from({ length: 80 }, (_, i) => ({ id: i, name: `设备-${i}`, online: i % 2 === 0 })) },
  'a bare string': '你好',
  'an empty object': {},
};

let legacyKeys: RsaKeyPairPem;
let modernKeys: RsaKeyPairPem;

beforeAll(async () => {
  [legacyKeys, modernKeys] = await Promise.all([generateRsaKeyPair(1024), generateRsaKeyPair(2048)]);
});

const result = (publicKey: string, scheme: PublicKeyResult['scheme'], mockServer = false): PublicKeyResult => ({
  publicKey,
  scheme,
  mockServer,
});

const utf8 = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('createPayloadCipher', () => {
  it.each([
    ['no public key', result('', 'modern')],
    ['mock server', result('-----BEGIN PUBLIC KEY-----', 'modern', true)],
    ['scheme off', result('-----BEGIN PUBLIC KEY-----', 'off')],
  ])('is null with %s', async (_name, pk) => {
    expect(await createPayloadCipher(pk)).toBeNull();
  });

  it('refuses a legacy key that is not RSA-1024', async () => {
    await expect(createPayloadCipher(result(modernKeys.publicKeyPem, 'legacy'))).rejects.toThrow(/RSA-1024/);
  });

  it('refuses bodies JSON cannot carry', async () => {
    const cipher = (await createPayloadCipher(result(modernKeys.publicKeyPem, 'modern')))!;
    await expect(cipher.seal(new FormData())).rejects.toThrow(TypeError);
    await expect(cipher.seal(new Uint8Array(3))).rejects.toThrow(TypeError);
  });
});

describe('legacy: web ↔ server helpers', () => {
  let cipher: PayloadCipher;
  beforeAll(async () => {
    cipher = (await createPayloadCipher(result(legacyKeys.publicKeyPem, 'legacy')))!;
  });

  it.each(Object.entries(BODIES))('request and response round-trip: %s', async (_name, body) => {
    expect(cipher.scheme).toBe('legacy');
    const sealed = await cipher.seal(body);
    expect(sealed.headers).toEqual({ [CRYPTO_HEADER]: 'legacy' });

    const onServer = legacyDecryptPrivate(sealed.body!.payload, legacyKeys.privateKeyPem);
    expect(JSON.parse(utf8(onServer))).toEqual(body);

    const answer = { code: 200, msg: '成功', data: body };
    expect(await sealed.open(legacyEncryptPrivate(JSON.stringify(answer), legacyKeys.privateKeyPem))).toEqual(answer);
  });

  it('without a body: no body, the header still asks for an encrypted response', async () => {
    const sealed = await cipher.seal(undefined);
    expect(sealed.body).toBeUndefined();
    expect(sealed.headers[CRYPTO_HEADER]).toBe('legacy');
    expect(await sealed.open(legacyEncryptPrivate('{"code":200}', legacyKeys.privateKeyPem))).toEqual({ code: 200 });
  });

  it('rejects a response it cannot decrypt', async () => {
    const sealed = await cipher.seal(undefined);
    const other = (await generateRsaKeyPair(1024)).privateKeyPem;
    await expect(sealed.open(legacyEncryptPrivate('{}', other))).rejects.toThrow(/could not be decrypted/);
    await expect(sealed.open('not base64!')).rejects.toThrow(/could not be decrypted/);
  });
});

describe('modern: web ↔ server helpers', () => {
  let cipher: PayloadCipher;
  let privateKey: CryptoKey;
  beforeAll(async () => {
    cipher = (await createPayloadCipher(result(modernKeys.publicKeyPem, 'modern')))!;
    privateKey = await modernImportPrivateKey(modernKeys.privateKeyPem);
  });

  it.each(Object.entries(BODIES))('request and response round-trip: %s', async (_name, body) => {
    expect(cipher.scheme).toBe('modern');
    const sealed = await cipher.seal(body);
    expect(sealed.headers[CRYPTO_HEADER]).toBe('modern');

    const key = await modernUnwrapKey(sealed.headers[CRYPTO_KEY_HEADER]!, privateKey);
    expect(JSON.parse(utf8(await modernDecrypt(key, sealed.body!.payload)))).toEqual(body);

    const answer = { code: 200, msg: '成功', data: body };
    expect(await sealed.open(await modernEncrypt(key, JSON.stringify(answer)))).toEqual(answer);
  });

  it('uses a fresh key for every request', async () => {
    const [a, b] = await Promise.all([cipher.seal({ same: 1 }), cipher.seal({ same: 1 })]);
    expect(a.headers[CRYPTO_KEY_HEADER]).not.toBe(b.headers[CRYPTO_KEY_HEADER]);
    expect(a.body!.payload).not.toBe(b.body!.payload);
    const keyOfA = await modernUnwrapKey(a.headers[CRYPTO_KEY_HEADER]!, privateKey);
    await expect(b.open(await modernEncrypt(keyOfA, '{}'))).rejects.toThrow(/could not be decrypted/);
  });

  it('without a body: no body, the key header still comes along', async () => {
    const sealed = await cipher.seal(undefined);
    expect(sealed.body).toBeUndefined();
    const key = await modernUnwrapKey(sealed.headers[CRYPTO_KEY_HEADER]!, privateKey);
    expect(await sealed.open(await modernEncrypt(key, '{"code":200}'))).toEqual({ code: 200 });
  });
});

describe.each(['legacy', 'modern'] as const)('%s: web cipher against the server plugin', (scheme) => {
  const app = Fastify();
  let cipher: PayloadCipher;

  beforeAll(async () => {
    await app.register(payloadCryptoPlugin, { scheme, keyDir: await mkdtemp(join(tmpdir(), 'payload-crypto-web-')) });
    app.post('/apiAdmin/echo', async (request) => ({ code: 200, msg: 'ok', data: request.body }));
    app.get('/apiAdmin/publicKey', async () => ({
      code: 200,
      msg: 'ok',
      data: result(app.payloadCrypto.publicKeyPem, app.payloadCrypto.scheme),
    }));
    await app.ready();
    const publicKey = (await app.inject({ method: 'GET', url: '/apiAdmin/publicKey' })).json<{
      data: PublicKeyResult;
    }>();
    cipher = (await createPayloadCipher(publicKey.data))!;
  });
  afterAll(() => app.close());

  it('the handler sees the plain body and the web opens the response', async () => {
    const body = BODIES.Chinese;
    const sealed = await cipher.seal(body);
    const response = await app.inject({
      method: 'POST',
      url: '/apiAdmin/echo',
      headers: { 'content-type': 'application/json', ...sealed.headers },
      payload: JSON.stringify(sealed.body),
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers[CRYPTO_HEADER]).toBe(scheme);
    expect(await sealed.open(response.json<{ payload: string }>().payload)).toEqual({
      code: 200,
      msg: 'ok',
      data: body,
    });
  });

  it('a GET with the headers only comes back encrypted', async () => {
    const sealed = await cipher.seal(undefined);
    const response = await app.inject({ method: 'GET', url: '/apiAdmin/publicKey', headers: sealed.headers });
    expect(response.headers[CRYPTO_HEADER]).toBe(scheme);
    expect(await sealed.open(response.json<{ payload: string }>().payload)).toMatchObject({ code: 200 });
  });
});
