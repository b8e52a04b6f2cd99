import { randomBytes } from 'node:crypto';
import type { AppKeyCreateBody, AppKeyWithSecret } from '@cpc/contracts/integration';
import { signOpenRequest } from '../src/modules/open-api/signature.ts';
import type { Harness } from './harness.ts';

/** An app key made through the console, with the secret its creation answered. */
export async function createKey(h: Harness, token: string, body: Partial<AppKeyCreateBody> = {}): Promise<AppKeyWithSecret> {
  const res = await h.call({ method: 'POST', url: '/apiAdmin/integration/key/create', token, payload: { name: `key ${randomBytes(3).toString('hex')}`, ...body } });
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
  const signed = signOpenRequest({ appId: key.appId, secret: o.secret ?? key.secret, method, url, body: o.signedBody ?? payload, timestamp: o.timestamp, nonce: o.nonce });
  const headers: Record<string, string> = { ...signed, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...o.headers };
  for (const [k, v] of Object.entries(headers)) if (v === '') delete headers[k];
  return h.call({ method, url, payload, headers, ...(o.remoteAddress ? { remoteAddress: o.remoteAddress } : {}) });
}

let origin = 0;
/** A fresh originId within a test file. */
export const nextOrigin = () => `o-${process.pid}-${++origin}-${randomBytes(2).toString('hex')}`;

export const printRow = (h: Harness, id: string) => h.db.selectFrom('print_jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
