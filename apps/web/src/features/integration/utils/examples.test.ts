// @vitest-environment node
import { execFile } from 'node:child_process';
import { createHmac, createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPEN_HEADERS } from '@cpc/contracts/integration-constants';
import { canonicalQuery, stringToSign } from '@cpc/contracts/open-api';
import {
  EXAMPLE_LANGUAGES,
  OPEN_CALLS,
  SECRET_ENV,
  buildExample,
  type ExampleLanguage,
  type ExampleValues,
} from './examples';

const SECRET = 'sk_test_5f1e9a0c7b2d4e6f8a9b0c1d2e3f4a5b';
const APP_ID = 'ak0123456789abcdef';

interface Seen {
  method: string;
  url: string;
  body: string;
  signatureOk: boolean;
}

/** A stand-in open API that checks each request's signature exactly as the contract defines it. */
let server: Server;
let origin = '';
const seen: Seen[] = [];
let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cpc-examples-'));
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const url = req.url ?? '';
      const q = url.indexOf('?');
      const expected = createHmac('sha256', SECRET)
        .update(
          stringToSign({
            method: req.method ?? '',
            path: q < 0 ? url : url.slice(0, q),
            query: q < 0 ? '' : url.slice(q + 1),
            timestamp: String(req.headers[OPEN_HEADERS.timestamp]),
            nonce: String(req.headers[OPEN_HEADERS.nonce]),
            bodySha256: createHash('sha256').update(raw).digest('hex'),
          }),
        )
        .digest('hex');
      const signatureOk =
        req.headers[OPEN_HEADERS.appId] === APP_ID && req.headers[OPEN_HEADERS.signature] === expected;
      seen.push({ method: req.method ?? '', url, body: raw.toString('utf8'), signatureOk });
      res.writeHead(signatureOk ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: signatureOk ? 200 : 401, msg: signatureOk ? 'ok' : 'bad signature', data: null }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  if (dir) await rm(dir, { recursive: true, force: true });
});

const values = (): ExampleValues => ({
  origin,
  appId: APP_ID,
  deviceSn: 'CP58A0001',
  jobId: '5b1f6c1e-8a2e-4f7a-9d55-2f3f1c0e9a10',
});

const run = (file: string, cmd: string, args: string[]) =>
  new Promise<string>((resolve, reject) =>
    execFile(
      cmd,
      [...args, file],
      { env: { ...process.env, [SECRET_ENV]: SECRET }, timeout: 20_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
    ),
  );

const RUNNERS: Record<ExampleLanguage, { ext: string; cmd: string; args: string[] }> = {
  curl: { ext: 'sh', cmd: 'bash', args: [] },
  node: { ext: 'mjs', cmd: process.execPath, args: [] },
  python: { ext: 'py', cmd: 'python3', args: [] },
};

describe('open API examples', () => {
  it('carry the app id and never a secret, in every language and call', () => {
    for (const language of EXAMPLE_LANGUAGES) {
      for (const call of OPEN_CALLS) {
        const code = buildExample(language, call, values());
        expect(code).toContain(APP_ID);
        expect(code).toContain(SECRET_ENV);
        expect(code).not.toContain(SECRET);
        expect(code).toContain(call.example(values()));
      }
    }
  });

  it('write their queries in canonical order, so the curl recipe signs them as written', () => {
    for (const call of OPEN_CALLS) {
      const url = call.example(values());
      const q = url.indexOf('?');
      if (q >= 0) expect(canonicalQuery(url.slice(q + 1))).toBe(url.slice(q + 1));
    }
  });

  const calls = OPEN_CALLS.filter((c) => c.id === 'print' || c.id === 'devices' || c.id === 'cancel');
  for (const language of EXAMPLE_LANGUAGES) {
    it(
      `run as written in ${language} and sign each request the way the server checks it`,
      { timeout: 60_000 },
      async () => {
        for (const call of calls) {
          seen.length = 0;
          const { ext, cmd, args } = RUNNERS[language];
          const file = path.join(dir, `${language}-${call.id}.${ext}`);
          await writeFile(file, buildExample(language, call, values()));
          const out = await run(file, cmd, args);
          expect(seen, `${language} ${call.id}`).toHaveLength(1);
          expect(seen[0]).toMatchObject({ method: call.method, url: call.example(values()), signatureOk: true });
          if (call.body) expect(JSON.parse(seen[0].body)).toEqual(call.body(values()));
          expect(out).toMatch(/200/);
        }
      },
    );
  }
});
