import type { FieldError } from '@cpc/contracts';
import { isMessageKey, renderMessage, type MessageKey, type MessageParams } from '@cpc/contracts/messages';
import { getLanguage } from './i18n';

/**
 * The server names each problem of a field (`data.fields[]`, an import's `data.rows[]`) by a key of the shared
 * catalogue (contracts/messages.ts) with its values, beside its en `message` for programs. The console says it
 * by that key in its own language; a feature whose form words a key its own way maps the key to its i18n key.
 */
export type Wording = Partial<Record<MessageKey, string | Record<string, string>>>;
export type T = (key: string, options?: Record<string, unknown>) => string;

export interface ServerMessage {
  message: string;
  key?: string;
  params?: Record<string, unknown>;
}

/** A problem the server named, in the console's language: the feature's own words for its key, else the catalogue's. */
export function sayServerMessage(m: ServerMessage, t?: T, wording?: Wording, field?: string): string {
  if (!m.key || !isMessageKey(m.key)) return m.message;
  const words = wording?.[m.key];
  // a key may be worded per field (`rule.maxChars` names each field's own limit)
  const own = typeof words === 'string' ? words : field ? words?.[field] : undefined;
  if (own && t) return t(own, m.params);
  return renderMessage(getLanguage(), m.key, m.params as MessageParams | undefined);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** Digs `fields` out of whatever the request layer rejected with (its error, the envelope, an axios error). */
export function serverFieldErrors(err: unknown): FieldError[] {
  if (!isRecord(err)) return [];
  const response = isRecord(err.response) ? err.response : undefined;
  const candidates = [
    err.data,
    err,
    err.envelope,
    isRecord(err.envelope) ? err.envelope.data : undefined,
    response?.data,
  ];
  if (response && isRecord(response.data)) candidates.push(response.data.data);
  for (const c of candidates) {
    if (isRecord(c) && Array.isArray(c.fields)) {
      return c.fields.filter(
        (f): f is FieldError => isRecord(f) && typeof f.field === 'string' && typeof f.message === 'string',
      );
    }
  }
  return [];
}
