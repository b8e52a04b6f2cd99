import type { FieldError } from '@cpc/contracts';
import type { MessageKey, MessageParams } from '@cpc/contracts/messages';
import { getLanguage } from './i18n';

type Catalogue = typeof import('@cpc/contracts/messages');

let catalogue: Catalogue | undefined;
let loading: Promise<Catalogue> | undefined;

/**
 * The catalogue (both languages of every server message) is a chunk of its own, off the sign-in page's first load:
 * the sign-in page fetches it while the user types (app/warm-up.ts), the signed-in area when it opens. Until it is
 * there a field error the form has no words of its own for is said in the server's en `message`.
 */
export function loadServerMessages(): Promise<Catalogue> {
  loading ??= import('@cpc/contracts/messages').then((m) => (catalogue = m));
  return loading;
}

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
  if (!m.key) return m.message;
  const words = wording?.[m.key as MessageKey];
  // a key may be worded per field (`rule.maxChars` names each field's own limit)
  const own = typeof words === 'string' ? words : field ? words?.[field] : undefined;
  if (own && t) return t(own, m.params);
  if (!catalogue) {
    void loadServerMessages();
    return m.message;
  }
  if (!catalogue.isMessageKey(m.key)) return m.message;
  return catalogue.renderMessage(getLanguage(), m.key, m.params as MessageParams | undefined);
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
