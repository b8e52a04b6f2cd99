import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppKeyCreateBody, AppKeyWithSecret } from '@cpc/contracts/integration';
import type { WebhookPayload } from '@cpc/contracts/open-api';
import { signOpenRequest } from '../src/modules/open-api/signature.ts';
import type { Harness } from './harness.ts';

/** An app key made through the console, with the secret its creation answered. */
export async function createKey(
  h: Harness,
  token: string,
  body: Partial<AppKeyCreateBody> = {},
): Promise<AppKeyWithSecret> {
  const res = await h.call({
    method: 'POST',
    url: '/apiAdmin/integration/key/create',
    token,
    payload: { name: `key ${randomBytes(3).toString('hex')}`, ...body },
  });
  if (res.statusCode !== 200) throw new Error(`key create: ${res.body}`);
  return res.body_.data;
}

export interface OpenCallOptions {
  method?: 'GET' | 'POST';
  /** Path and query under /open/v1 as sent: `/print?pageSize=5`. */
  url: string;
  /** An object is sent as JSON; a string as it is. */
  body?: unknown;
  /** Sign with this secret instead of the key's (a wrong or rotated one). */
  secret?: string;
  timestamp?: number;
  nonce?: string;
  /** Headers sent over the signed ones (to drop one, give it as ''). */
  headers?: Record<string, string>;
  /** Sign this body but send `body` (a tampered request). */
  signedBody?: string;
  remoteAddress?: string;
}

/** A call of the open API signed as an integrator would sign it (the reference client of docs/open-api.md). */
export function openCall(h: Harness, key: { appId: string; secret: string }, o: OpenCallOptions) {
  const method = o.method ?? (o.body === undefined ? 'GET' : 'POST');
  const url = `/open/v1${o.url}`;
  const payload = o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
  const signed = signOpenRequest({
    appId: key.appId,
    secret: o.secret ?? key.secret,
    method,
    url,
    body: o.signedBody ?? payload,
    timestamp: o.timestamp,
    nonce: o.nonce,
  });
  const headers: Record<string, string> = {
    ...signed,
    ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
    ...o.headers,
  };
  for (const [k, v] of Object.entries(headers)) if (v === '') delete headers[k];
  return h.call({ method, url, payload, headers, ...(o.remoteAddress ? { remoteAddress: o.remoteAddress } : {}) });
}

let origin = 0;
/** A fresh originId within a test file. */
export const nextOrigin = () => `o-${process.pid}-${++origin}-${randomBytes(2).toString('hex')}`;

export const printRow = (h: Harness, id: string) =>
  h.db.selectFrom('print_jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

export interface ReceivedCallback {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The X-CPC-Signature checked against the secret the receiver was given. */
  signatureValid: boolean;
  json: WebhookPayload;
  /** What the receiver answered. */
  status: number;
}

export interface Receiver {
  url: string;
  calls: ReceivedCallback[];
  /** The secret signatures are checked with (set it after a rotation). */
  secret: string;
  /** Decides the answer to each call (default 200). */
  answer: (c: Omit<ReceivedCallback, 'status'>, n: number) => number;
  close(): Promise<void>;
}

/** A callback receiver on an ephemeral local port that verifies signatures as docs/open-api.md tells integrators to. */
export async function startReceiver(secret = ''): Promise<Receiver> {
  const r: Receiver = {
    url: '',
    calls: [],
    secret,
    answer: () => 200,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const expected = createHmac('sha256', r.secret).update(body).digest('hex');
      const given = String(req.headers['x-cpc-signature'] ?? '');
      const signatureValid =
        given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
      let json = {} as WebhookPayload;
      try {
        json = JSON.parse(body);
      } catch {
        // recorded as it came
      }
      const call = { headers: req.headers, body, signatureValid, json };
      const status = r.answer(call, r.calls.length + 1);
      r.calls.push({ ...call, status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'try later');
    });
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  return r;
}
