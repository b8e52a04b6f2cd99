/**
 * Where the payload crypto keeps its keys (one pair per scheme, shared by every node through the database, or in
 * files) and the requests it has seen (replays are refused on every node).
 */
import { createPrivateKey, createPublicKey, generateKeyPair, KeyObject, randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

export const LEGACY_KEY_BITS = 1024;
export const MODERN_KEY_BITS = 2048;

// ---------------------------------------------------------------------------------------------------------------
// Keys

export interface RsaKeyPairPem {
  publicKeyPem: string;
  privateKeyPem: string;
}

export async function generateRsaKeyPair(bits: number): Promise<RsaKeyPairPem> {
  const { publicKey, privateKey } = await promisify(generateKeyPair)('rsa', {
    modulusLength: bits,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}

/** Creates `path` atomically (temp file + link) so concurrent starters agree on one key; returns its content. */
async function createOnce(path: string, content: string): Promise<string> {
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmp, content, { mode: 0o600, flag: 'wx' });
  try {
    await chmod(tmp, 0o600); // writeFile's mode is subject to the umask
    await link(tmp, path);
    return content;
  } catch (error) {
    if (isErrno(error, 'EEXIST')) return readFile(path, 'utf8');
    throw error;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

interface LoadedKeys {
  privateKey: KeyObject;
  publicKeyPem: string;
}

/** Loads `payload-<scheme>.key.pem` from keyDir, generating it on first start; writes the public half beside it. */
export async function loadOrCreateKeyPair(
  keyDir: string,
  scheme: 'legacy' | 'modern',
  warn: (message: string) => void = () => undefined,
): Promise<LoadedKeys> {
  const bits = scheme === 'legacy' ? LEGACY_KEY_BITS : MODERN_KEY_BITS;
  const privatePath = join(keyDir, `payload-${scheme}.key.pem`);
  await mkdir(keyDir, { recursive: true, mode: 0o700 });

  let pem: string;
  try {
    pem = await readFile(privatePath, 'utf8');
    const { mode } = await stat(privatePath);
    if ((mode & 0o077) !== 0)
      warn(`payload crypto: ${privatePath} is readable by others (mode ${(mode & 0o777).toString(8)}); use 0600`);
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) throw error;
    pem = await createOnce(privatePath, (await generateRsaKeyPair(bits)).privateKeyPem);
  }

  return checkedKeyPair(pem, keyDir, scheme, privatePath);
}

/** The key pair of a PEM: checked to be RSA of the scheme's size; its public half written beside the private file. */
async function checkedKeyPair(
  pem: string,
  keyDir: string,
  scheme: 'legacy' | 'modern',
  privatePath: string,
): Promise<LoadedKeys> {
  const bits = scheme === 'legacy' ? LEGACY_KEY_BITS : MODERN_KEY_BITS;
  const publicPath = join(keyDir, `payload-${scheme}.pub.pem`);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch {
    throw new Error(`payload crypto: ${privatePath} is not a PEM private key`);
  }
  const actualBits = privateKey.asymmetricKeyDetails?.modulusLength;
  if (privateKey.asymmetricKeyType !== 'rsa' || actualBits !== bits) {
    throw new Error(
      `payload crypto: ${privatePath} holds a ${privateKey.asymmetricKeyType ?? 'unknown'} ${actualBits ?? '?'}-bit key; ` +
        `the ${scheme} scheme needs RSA-${bits}`,
    );
  }

  const publicKeyPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  await replaceFile(publicPath, publicKeyPem);
  return { privateKey, publicKeyPem };
}

/** Writes `content` to `path` (mode 0600, through a temporary file) unless it holds that already. */
async function replaceFile(path: string, content: string): Promise<void> {
  const current = await readFile(path, 'utf8').catch(() => '');
  if (current === content) return;
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmp, content, { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, path);
}

/**
 * The key pair every node uses (issue 17: nodes behind one proxy must decrypt what the console sealed for any of
 * them): the private key is kept in PostgreSQL (`app_settings`, beside the JWT secret). The first node to start
 * stores its key file's key (an existing installation keeps its key) or a new one; every node then uses the
 * stored key and writes it to its own key files, which are only a copy.
 */
export async function loadSharedKeyPair(
  db: Db,
  keyDir: string,
  scheme: 'legacy' | 'modern',
  warn: (message: string) => void = () => undefined,
): Promise<LoadedKeys> {
  const name = `payload_${scheme}_private_key`;
  const stored = () => db.selectFrom('app_settings').select('value').where('key', '=', name).executeTakeFirst();
  let row = await stored();
  if (!row) {
    const local = await loadOrCreateKeyPair(keyDir, scheme, warn);
    const pem = local.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    await db
      .insertInto('app_settings')
      .values({ key: name, value: pem })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    row = await stored();
    if (!row) throw new Error(`payload crypto: ${name} could not be stored`);
  }
  await mkdir(keyDir, { recursive: true, mode: 0o700 });
  const privatePath = join(keyDir, `payload-${scheme}.key.pem`);
  const keys = await checkedKeyPair(row.value, keyDir, scheme, privatePath);
  await replaceFile(privatePath, row.value);
  return keys;
}

// ---------------------------------------------------------------------------------------------------------------
// Replay guard

/** How long what a request carried is remembered: an access token's life (ACCESS_TOKEN_TTL's default). */
export const REPLAY_WINDOW_S = 15 * 60;
/** How often expired digests are deleted (once across the cluster). */
export const REPLAY_SWEEP_MS = 60_000;

/** Admits a request's tokens (digests of its wrapped key or its ciphertext blocks) unless one was seen before. */
export interface ReplayGuard {
  /** false when any token was already seen; otherwise records them all. */
  admit(tokens: Buffer[]): Promise<boolean>;
}

/**
 * What every node has seen, in PostgreSQL (`payload_replays`): a request replayed to another node is refused too.
 * One round trip per encrypted request, committed asynchronously: a crash of PostgreSQL may forget the last
 * fraction of a second of digests, but a request that wrote anything made its own commit durable, which flushes
 * the log past its digest.
 */
export class SharedReplayGuard implements ReplayGuard {
  constructor(
    private db: Db,
    private windowS = REPLAY_WINDOW_S,
  ) {}

  async admit(tokens: Buffer[]): Promise<boolean> {
    const unique = [...new Set(tokens.map((t) => t.toString('hex')))];
    const { rows } = await sql<{ n: number }>`
      WITH i AS (
        INSERT INTO payload_replays (digest, expires_at)
        SELECT decode(d, 'hex'), now() + make_interval(secs => ${this.windowS}) FROM unnest(${unique}::text[]) AS d
        ON CONFLICT DO NOTHING
        RETURNING 1
      )
      SELECT count(*)::int AS n, set_config('synchronous_commit', 'off', true) AS _ FROM i`.execute(this.db);
    return rows[0]?.n === unique.length;
  }

  /** Deletes the digests past their window; returns how many. */
  async sweep(): Promise<number> {
    const res = await sql`DELETE FROM payload_replays WHERE expires_at < now()`.execute(this.db);
    return Number(res.numAffectedRows ?? 0);
  }
}

/**
 * This process's memory only (the plugin without a database: its unit tests). Bounded in size; a replay older
 * than the window, or sent to another process, passes.
 */
export class MemoryReplayGuard implements ReplayGuard {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly windowMs = REPLAY_WINDOW_S * 1000,
    private readonly maxEntries = 200_000,
  ) {}

  admit(tokens: Buffer[]): Promise<boolean> {
    const now = Date.now();
    const keys = tokens.map((t) => t.toString('base64'));
    for (const [token, at] of this.seen) {
      if (at > now - this.windowMs && this.seen.size + keys.length <= this.maxEntries) break;
      this.seen.delete(token);
    }
    if (keys.some((token) => this.seen.has(token))) return Promise.resolve(false);
    for (const token of keys) this.seen.set(token, now);
    return Promise.resolve(true);
  }
}
