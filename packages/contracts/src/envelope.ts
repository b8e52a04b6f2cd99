import { z } from 'zod';
import type { MessageKey, MessageParams } from './messages.ts';

/** Every response body of /apiAdmin: `{ code, msg, data }`. Success is always 200 (SPEC §8, DESIGN §5). */
export interface Envelope<T = unknown> {
  code: number;
  msg: string;
  data: T;
}

export const envelopeSchema = <T extends z.ZodType>(data: T) =>
  z.object({ code: z.number().int(), msg: z.string(), data });

/** The error catalogue of SPEC §8: code → default text (en). zh texts live in the web's i18n resources. */
export const CODE_TEXTS = {
  200: 'server returned data',
  201: 'created or modified',
  202: 'queued async task',
  204: 'deleted',
  400: 'request information is wrong',
  401: 'no permission (token invalid, wrong user name or password, login expired)',
  402: 'token expired',
  403: 'authorized but forbidden',
  404: 'resource does not exist',
  // the HTTP layer's own refusals (not in SPEC §8's table): sent, like the others, as both status and body code
  405: 'method not allowed on this path',
  406: 'format not available',
  408: 'request timed out',
  /** The change conflicts with the current state (a department that is not empty, the last administrator). */
  409: 'conflicts with the current state',
  410: 'resource permanently deleted',
  413: 'request body too large',
  415: 'unsupported media type',
  /** A download's Range lies outside the file (a resumed download of a file that changed). */
  416: 'requested range not satisfiable',
  417: 'the Expect header cannot be met',
  429: 'too many requests',
  431: 'request header or URL too large',
  500: 'server error',
  502: 'gateway error',
  503: 'service unavailable',
  504: 'gateway timeout',
} as const;

export type AppCode = keyof typeof CODE_TEXTS;

export { SUCCESS_CODES } from './constants.ts';

/** The envelope of a paged list: `data: { list, total }`. */
export const pagedEnvelope = <T extends z.ZodType>(item: T) =>
  envelopeSchema(z.object({ list: z.array(item), total: z.number().int() }));

/** Paged list shape: `data: { list, total }` with `pageNo`, `pageSize` in the query. */
export interface Paged<T> {
  list: T[];
  total: number;
}

export const pageQuery = z.object({
  pageNo: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
});

/** A field-level validation problem, returned in `data.fields` of a 400. */
export interface FieldError {
  field: string;
  /** In en, for programs that match it. */
  message: string;
  /** The message's key in contracts/messages.ts and its values: the console says it in its own language. */
  key?: MessageKey;
  params?: MessageParams;
}
