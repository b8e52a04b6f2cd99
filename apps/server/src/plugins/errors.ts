import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type {
  ConnectionError,
  FastifyBaseLogger,
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import pg from 'pg';
import { CODE_TEXTS, type AppCode, type FieldError } from '@cpc/contracts';
import {
  MESSAGES,
  isMessageKey,
  renderMessage,
  sayAboutField,
  type Language,
  type MessageParams,
  type PlainKey,
} from '@cpc/contracts/messages';
import { requestLanguage, zodIssueZh } from '../lib/i18n/localize.ts';
import { AppError, VerbatimError, badRequest, codeKey, fieldError } from '../lib/app-error.ts';

export {
  AppError,
  VerbatimError,
  badRequest,
  codeKey,
  fieldError,
  notFound,
  type ErrorExtra,
} from '../lib/app-error.ts';

function fieldName(path: readonly PropertyKey[] | undefined, instancePath?: string, where = 'body'): string {
  if (path && path.length) return path.map(String).join('.');
  // a whole-object issue names what was checked: the body, the querystring, the params
  return (instancePath ?? '').replace(/^\//, '').replace(/\//g, '.') || where;
}

/** What PostgreSQL's data exceptions (SQLSTATE class 22) say about a value, in the words of a validation error. */
const DATA_ERRORS: Record<string, PlainKey> = {
  '22021': 'db.unstorable',
  '22P05': 'db.unstorable',
  '22P02': 'db.format',
  '22003': 'db.range',
  '22001': 'db.tooLong',
  '22007': 'db.dateTime',
  '22008': 'db.dateTime',
  '22012': 'db.range',
};

/**
 * A value the database refused as data (class 22: NUL in text, a number out of range, a malformed uuid, …) is a
 * bad request, not a server error. The schemas should have refused it first: this is the safety net behind them.
 */
function dataError(err: unknown, req: FastifyRequest): AppError | null {
  if (!(err instanceof pg.DatabaseError) || !err.code?.startsWith('22')) return null;
  const field =
    req.body !== undefined && req.body !== null
      ? 'body'
      : req.params && Object.keys(req.params).length
        ? 'params'
        : 'query';
  req.log.warn(
    { sqlState: err.code, err: err.message, url: req.url },
    'a value the schema let through was refused by the database',
  );
  return badRequest(field, DATA_ERRORS[err.code] ?? 'db.invalid');
}

const sendAppError = (err: AppError | VerbatimError, req: FastifyRequest, reply: FastifyReply) =>
  reply
    .code(err.code)
    .headers(err.headers)
    .send({ code: err.code, msg: err.say(requestLanguage(req)), data: err.data });

/** The keys of the texts Fastify itself says (its refusals of a body), by its en text: the one place that reads en. */
const FASTIFY_TEXTS = new Map<string, PlainKey>(
  (
    ['http.bodyNotJson', 'http.bodyEmpty', 'http.bodyTooLarge', 'http.mediaType', 'http.bodyLengthMismatch'] as const
  ).map((k) => [MESSAGES[k].en, k]),
);

/**
 * Fastify's `frameworkErrors`: a URL the router cannot decode (`/open/v1/print/%ZZ`) fails before routing, where
 * the error handler is not reached yet; it answers the same envelope as any bad input, in the caller's language.
 */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const url = /^'(.*)' is not a valid url component$/s.exec(err.message)?.[1];
  void sendAppError(
    url !== undefined
      ? badRequest('url', 'http.badUrl', { url })
      : new VerbatimError(400, `url: ${err.message}`, { fields: [{ field: 'url', message: err.message }] }),
    req,
    reply,
  );
}

/** A schema's own message is a key of the catalogue; its values come from the issue (`{n}`: the limit it names). */
function issueParams(issue: Record<string, unknown> | undefined): MessageParams {
  const out: MessageParams = {};
  const num = (v: unknown) => (typeof v === 'number' || typeof v === 'bigint' ? Number(v) : undefined);
  const max = num(issue?.maximum);
  const min = num(issue?.minimum);
  if (max !== undefined) out.max = out.n = max;
  if (min !== undefined) out.min = min;
  if (min !== undefined && max === undefined) out.n = min;
  // a refine's values (`params` of the check) are the message's values
  const given = issue?.params;
  if (given && typeof given === 'object') Object.assign(out, given);
  return out;
}

/** The one place that builds error responses: everything becomes `{ code, msg, data }`. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((thrown: FastifyError | AppError | VerbatimError, req: FastifyRequest, reply: FastifyReply) => {
    const err = dataError(thrown, req) ?? thrown;
    if (err instanceof AppError || err instanceof VerbatimError) {
      if (err.code >= 500) req.log.error({ err }, 'application error');
      return sendAppError(err, req, reply);
    }
    if (hasZodFastifySchemaValidationErrors(err)) return sendValidationError(err, req, reply);
    const status = err.statusCode ?? 500;
    if (status >= 500) {
      req.log.error({ err }, 'unhandled error');
      return sendAppError(new AppError(500, codeKey(500)), req, reply);
    }
    // Fastify's own client errors (bad JSON, wrong content type, body too large, …): said by key, the code mapped.
    const code = (status in CODE_TEXTS ? status : 400) as AppCode;
    // Fastify's 415 no longer names the type it refused: the caller needs it to see their mistake
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' && req.headers['content-type']) {
      return sendAppError(
        new AppError(code, 'http.mediaTypeRefused', { type: req.headers['content-type'].slice(0, 100) }),
        req,
        reply,
      );
    }
    const key = err.message ? FASTIFY_TEXTS.get(err.message) : codeKey(code);
    return sendAppError(key ? new AppError(code, key) : new VerbatimError(code, err.message), req, reply);
  });

  answerExpectations(app);
  answerUnknownRoutes(app);
}

/** A request that fails its schema: 400, each field named with what is wrong, in the reader's language. */
function sendValidationError(
  err: FastifyError & { validation: NonNullable<FastifyError['validation']> },
  req: FastifyRequest,
  reply: FastifyReply,
) {
  const where = err.validationContext ?? 'body';
  const lang = requestLanguage(req);
  const said: string[] = [];
  const fields: FieldError[] = err.validation.map((v) => {
    // the provider puts the zod issue's code in `keyword` and its other fields in `params` (older: `params.issue`)
    const params = v.params as {
      issue?: { path?: PropertyKey[]; code?: string; keys?: string[] };
      keys?: string[];
    };
    const issue = params.issue;
    let field = fieldName(issue?.path, v.instancePath, where);
    const unknownKeys = (issue?.code ?? v.keyword) === 'unrecognized_keys' ? (issue?.keys ?? params.keys) : undefined;
    if (unknownKeys?.length) field = [field === where ? '' : field, unknownKeys.join(',')].filter(Boolean).join('.');
    const named = field === 'body' ? where : field;
    const message = v.message ?? 'is invalid';
    if (isMessageKey(message)) {
      const values = issueParams((issue ?? v.params) as Record<string, unknown>);
      said.push(sayAboutField(named, renderMessage(lang, message, values), lang));
      return fieldError(named, message, values);
    }
    // zod's own words (a schema without a message of its own)
    const zh =
      lang === 'zh'
        ? zodIssueZh({
            code: issue?.code ?? v.keyword,
            message,
            params: (issue ?? v.params) as Record<string, unknown>,
          })
        : message;
    said.push(sayAboutField(named, zh, lang));
    return { field: named, message };
  });
  // data.fields stays en (programs match it) with the keys; msg is for people, in their language
  const msg = said.join(lang === 'zh' ? '；' : '; ');
  return reply.code(400).send({ code: 400, msg, data: { fields } });
}

/** Node answers an Expect other than 100-continue itself, with an empty 417, unless the server listens for it. */
function answerExpectations(app: FastifyInstance): void {
  app.server?.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify({
      code: 417,
      msg: renderMessage(requestLanguage({ headers: req.headers } as FastifyRequest), codeKey(417)),
      data: null,
    });
    res
      .writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) })
      .end(body);
  });
}

/** 404 for a path no route has, 405 (with Allow) for a path another method has. */
function answerUnknownRoutes(app: FastifyInstance): void {
  // The routes by method, to tell "no such path" (404) from "not with this method" (405 with Allow)
  const known = FindMyWay();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      try {
        known.on(method as HTTPMethod, route.url, () => {});
      } catch {
        // the same method and path under another constraint: one entry says enough
      }
    }
  });

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    const allowed = ALLOW_ORDER.filter((m) => m !== req.method && known.find(m, path));
    if (allowed.length)
      throw new AppError(
        405,
        'http.methodNotAllowed',
        { method: req.method, path, allowed: allowed.join(', ') },
        { headers: { allow: allowed.join(', ') } },
      );
    reply.code(404).send({
      code: 404,
      msg: renderMessage(requestLanguage(req), 'http.noRoute', { method: req.method, path }),
      data: null,
    });
  });
}

const ALLOW_ORDER: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** What Node's HTTP parser refuses (no request exists yet): its code as the envelope's code. */
const CLIENT_ERRORS: Record<string, { code: AppCode; key: PlainKey }> = {
  HPE_HEADER_OVERFLOW: { code: 431, key: codeKey(431) },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 408, key: codeKey(408) },
  HPE_HEADER_TIMEOUT: { code: 408, key: codeKey(408) },
};
const STATUS_LINES: Partial<Record<AppCode, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * Fastify's `clientErrorHandler`: a request Node could not parse (a URL or header over maxHeaderSize, garbage in
 * the request line, a timeout) is answered with the same envelope as any other error, written on the socket
 * since there is no reply. The language is read from the bytes received, when they got that far.
 */
export function clientErrorHandler(this: { log: FastifyBaseLogger }, err: ConnectionError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const known = CLIENT_ERRORS[err.code ?? ''] ?? { code: 400 as AppCode, key: 'http.malformed' as PlainKey };
  // at run time rawPacket is the Buffer Node was parsing (Fastify's type says its JSON form)
  const received: unknown = err.rawPacket;
  const language: Language =
    Buffer.isBuffer(received) && /\r\naccept-language:[ \t]*zh/i.test(received.toString('latin1')) ? 'zh' : 'en';
  const body = JSON.stringify({ code: known.code, msg: renderMessage(language, known.key), data: null });
  // the bytes received are not logged: they may hold a token
  this.log.debug({ code: err.code }, 'HTTP request refused by the parser');
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${known.code} ${STATUS_LINES[known.code] ?? 'Bad Request'}\r\nContent-Type: application/json; ` +
        `charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

export const ok = <T>(data: T) => ({ code: 200, msg: 'ok', data });
