import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRYPTO_HEADER, CRYPTO_KEY_HEADER } from '@cpc/contracts';
import {
  legacyEncryptPublic,
  loadOrCreateKeyPair,
  loadSharedKeyPair,
  modernCreateKey,
  modernEncrypt,
  modernImportPublicKey,
  SharedReplayGuard,
} from '../src/plugins/payload-crypto.ts';
import { buildApp } from '../src/app.ts';
import { createDb, migrate } from '../src/db/database.ts';
import { ADMIN_PASSWORD, caller, createHarness, createTestDatabase, type Harness } from './harness.ts';
import type { Node } from './second-node.ts';

/**
 * The payload-crypto replay guard is shared by every node (payload_replays, issue 17): a sealed request that node
 * A took is refused when replayed to node B, for both schemes.
 */
describe.each(['modern', 'legacy'] as const)('payload replay across nodes (%s)', (scheme) => {
  let h: Harness;
  let b: Node;
  let token: string;
  let pem: string;

  beforeAll(async () => {
    h = await createHarness({ PAYLOAD_CRYPTO: scheme });
    // what a node on another machine has: the same database, a data directory (and key files) of its own
    const db = createDb(h.config.DATABASE_URL!, 3);
    const app = await buildApp({ ...h.config, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-node-b-')) }, db);
    await app.ready();
    b = {
      app,
      call: caller(app),
      async close() {
        await app.close();
        await db.destroy();
      },
    };
    token = (await h.login('admin', ADMIN_PASSWORD)).token;
    pem = (await h.call({ method: 'GET', url: '/apiAdmin/publicKey' })).body_.data.publicKey;
  });
  afterAll(async () => {
    await b?.close();
    await h?.close();
  });

  const sealed = async (body: object) => {
    const plain = JSON.stringify(body);
    if (scheme === 'legacy') {
      return {
        headers: { [CRYPTO_HEADER]: 'legacy', 'content-type': 'application/json' },
        payload: JSON.stringify({ payload: legacyEncryptPublic(plain, pem) }),
      };
    }
    const { key, wrappedKey } = await modernCreateKey(await modernImportPublicKey(pem));
    return {
      headers: { [CRYPTO_HEADER]: 'modern', [CRYPTO_KEY_HEADER]: wrappedKey, 'content-type': 'application/json' },
      payload: JSON.stringify({ payload: await modernEncrypt(key, plain) }),
    };
  };

  it('refuses on node B a request node A took, and on A one B took', async () => {
    const first = await sealed({ message: 'replayed across nodes', url: '/a' });
    const request = { method: 'POST' as const, url: '/apiAdmin/system/clientError', token, ...first };
    const onA = await h.call(request);
    expect(onA.statusCode).toBe(200);
    const onB = await b.call(request);
    expect(onB.statusCode).toBe(400);
    expect(onB.body_).toMatchObject({ code: 400, msg: 'payload replayed' });

    // node B has a data directory of its own, and still decrypts what was sealed with the key node A published
    expect((await b.call({ method: 'GET', url: '/apiAdmin/publicKey' })).body_.data.publicKey).toBe(pem);
    const second = await sealed({ message: 'the other way', url: '/b' });
    const other = { method: 'POST' as const, url: '/apiAdmin/system/clientError', token, ...second };
    expect((await b.call(other)).statusCode).toBe(200);
    expect((await h.call(other)).body_).toMatchObject({ code: 400, msg: 'payload replayed' });
    // a fresh request goes through on both
    expect((await b.call({ ...request, ...(await sealed({ message: 'new', url: '/c' })) })).statusCode).toBe(200);
  });

  it('keeps each digest for its window, and the sweep deletes the expired ones', async () => {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM payload_replays WHERE expires_at > now() + interval '14 minutes'`.execute(h.db);
    expect(rows[0].n).toBeGreaterThanOrEqual(3);
    await sql`INSERT INTO payload_replays VALUES (decode(repeat('ab', 32), 'hex'), now() - interval '1 second')`.execute(
      h.db,
    );
    expect(await new SharedReplayGuard(h.db).sweep()).toBe(1);
    // an expired digest that is gone no longer refuses its request: the window is the token's life
    const guard = new SharedReplayGuard(h.db, 60);
    expect(await guard.admit([Buffer.alloc(32, 0xab)])).toBe(true);
    expect(await guard.admit([Buffer.alloc(32, 0xab)])).toBe(false);
  });
});

describe('the shared payload key pair', () => {
  it('keeps an installation key: the first node stores its key file, a node with other files takes the stored one', async () => {
    const db = createDb(await createTestDatabase(), 2);
    try {
      await migrate(db);
      const dirA = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-keys-a-'));
      const dirB = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-keys-b-'));
      const before = await loadOrCreateKeyPair(dirA, 'modern'); // the key an installation had before issue 17
      const other = await loadOrCreateKeyPair(dirB, 'modern'); // a node that made its own
      expect(other.publicKeyPem).not.toBe(before.publicKeyPem);

      expect((await loadSharedKeyPair(db, dirA, 'modern')).publicKeyPem).toBe(before.publicKeyPem);
      expect((await loadSharedKeyPair(db, dirB, 'modern')).publicKeyPem).toBe(before.publicKeyPem);
      // node B's files are now a copy of the stored key
      expect((await loadOrCreateKeyPair(dirB, 'modern')).publicKeyPem).toBe(before.publicKeyPem);
      expect(fs.statSync(path.join(dirB, 'payload-modern.key.pem')).mode & 0o077).toBe(0);
    } finally {
      await db.destroy();
    }
  });
});
