import { docSign } from './doc-signer.ts';

export interface OpenKey {
  appId: string;
  secret: string;
}

export type OpenAnswer = { status: number; body: { code: number; msg: string; data: any } | null };

/**
 * One signed open-API call over real HTTP, as an integrator's software makes it (the print fault test and
 * bench/print.ts; open-helpers.ts `openCall` signs the same way through `inject`). A network failure (refused,
 * reset: the server is gone) rejects; any HTTP answer resolves.
 */
export async function signedFetch(
  baseUrl: string,
  key: OpenKey,
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<OpenAnswer> {
  const raw = body === undefined ? undefined : JSON.stringify(body);
  // signed as docs/open-api.md says, not with the server's own code: a disagreement between the two shows here
  const headers: Record<string, string> = { ...docSign(key, method, url, raw ?? '') };
  if (raw !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl}${url}`, { method, headers, body: raw, signal });
  const text = await res.text();
  let parsed: OpenAnswer['body'];
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  return { status: res.status, body: parsed };
}
