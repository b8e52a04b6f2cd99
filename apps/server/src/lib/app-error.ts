import type { AppCode, FieldError } from '@cpc/contracts';
import {
  renderMessage,
  sayAboutField,
  type Language,
  type MessageKey,
  type MessageParams,
  type Noun,
  type ParamsArg,
  type PlainKey,
} from '@cpc/contracts/messages';

/*
 * The errors the server's code throws, answered by the error handler (plugins/errors.ts) as `{ code, msg, data }`.
 * Here, below the plugins, so that helpers in lib/ may throw them too.
 */

/** What an error may carry besides its message: its data for programs, headers, and the field it is about. */
export interface ErrorExtra {
  data?: unknown;
  headers?: Record<string, string>;
  /** The input field the message is about: `msg` reads "field: …", and `data.fields` lists it with key and params. */
  field?: string;
}

/**
 * A failure the caller should see: carries a code of SPEC §8, sent as both HTTP status and body code, and a
 * message key of the catalogue (contracts/messages.ts) with its values, said in the caller's language.
 * `new AppError(400, 'device.alreadyBound')`, `new AppError(429, 'auth.loginThrottled', { n: 15 }, { headers })`.
 */
export class AppError<K extends MessageKey = MessageKey> extends Error {
  readonly key: K;
  readonly params: MessageParams | null;
  readonly field: string | undefined;
  readonly data: unknown;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: AppCode,
    key: K,
    ...args: [...ParamsArg<K>, extra?: ErrorExtra]
  ) {
    const params = (args[0] ?? null) as MessageParams | null;
    const extra = (args[1] ?? {}) as ErrorExtra;
    super(
      extra.field
        ? sayAboutField(extra.field, renderMessage('en', key, params), 'en')
        : renderMessage('en', key, params),
    );
    this.key = key;
    this.params = params;
    this.field = extra.field;
    this.headers = extra.headers ?? {};
    const base = extra.data ?? null;
    // a field error lists its field for programs: the en message, and its key and values for the console
    this.data = extra.field
      ? { ...(base as object | null), fields: [fieldError(extra.field, key, this.params)] }
      : base;
  }

  /** `msg` in a language. */
  say(lang: Language): string {
    const text = renderMessage(lang, this.key, this.params);
    return this.field ? sayAboutField(this.field, text, lang) : text;
  }
}

/** One entry of `data.fields`: the en message programs match, and the key and values to say it in any language. */
export const fieldError = (field: string, key: MessageKey, params?: MessageParams | null): FieldError => ({
  field,
  message: renderMessage('en', key, params),
  key,
  ...(params && Object.keys(params).length ? { params } : {}),
});

/** The default message of a code: `new AppError(401, …)` with SPEC §8's text. */
export const codeKey = (code: AppCode) => `http.${code}` as const satisfies PlainKey;

/**
 * A message the server did not write (a relayed answer of another service): said as it came, in no other
 * language. Only for text this server cannot key.
 */
export class VerbatimError extends Error {
  constructor(
    readonly code: AppCode,
    message: string,
    readonly data: unknown = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  /** As it came, in every language. */
  say(_lang: Language): string {
    return this.message;
  }
}

export const badRequest = <K extends MessageKey>(field: string, key: K, ...[params]: ParamsArg<K>) =>
  new AppError<MessageKey>(400, key, params as never, { field });
/** `data.resource` names what is missing for programs (the msg is said in the caller's language). */
export const notFound = (what: Noun = 'resource') =>
  new AppError(404, 'http.notFound', { what }, { data: { resource: what } });
