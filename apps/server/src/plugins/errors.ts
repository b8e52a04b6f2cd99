import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import pg from 'pg';
import { CODE_TEXTS, type AppCode, type FieldError } from '@cpc/contracts';
import { fieldLabel, localizeMessage, requestLanguage, zodIssueZh, type Language } from '../lib/i18n/localize.ts';

/** A failure the caller should see: carries a code of SPEC §8, sent as both HTTP status and body code. */
export class AppError extends Error {
  constructor(
    readonly code: AppCode,
    message?: string,
    readonly data: unknown = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? CODE_TEXTS[code]);
  }
}

export const badRequest = (field: string, message: string) =>
  new AppError(400, `${field}: ${message}`, { fields: [{ field, message }] satisfies FieldError[] });
/** `data.resource` names what is missing for programs (the msg is said in the caller's language). */
export const notFound = (what = 'resource') => new AppError(404, `${what} does not exist`, { resource: what });

function fieldName(path: readonly PropertyKey[] | undefined, instancePath?: string, where = 'body'): string {
  if (path && path.length) return path.map(String).join('.');
  // a whole-object issue names what was checked: the body, the querystring, the params
  return (instancePath ?? '').replace(/^\//, '').replace(/\//g, '.') || where;
}

/** What PostgreSQL's data exceptions (SQLSTATE class 22) say about a value, in the words of a validation error. */
const DATA_ERRORS: Record<string, string> = {
  '22021': 'contains a character that cannot be stored',
  '22P05': 'contains a character that cannot be stored',
  '22P02': 'has an invalid format',
  '22003': 'is out of range',
  '22001': 'is too long',
  '22007': 'is not a valid date or time',
  '22008': 'is not a valid date or time',
  '22012': 'is out of range',
};

/**
 * A value the database refused as data (class 22: NUL in text, a number out of range, a malformed uuid, …) is a
 * bad request, not a server error. The schemas should have refused it first: this is the safety net behind them.
 */
function dataError(err: unknown, req: FastifyRequest): AppError | null {
  if (!(err instanceof pg.DatabaseError) || !err.code?.startsWith('22')) return null;
  const field = req.body !== undefined && req.body !== null ? 'body' : req.params && Object.keys(req.params).length ? 'params' : 'query';
  const message = `a value ${DATA_ERRORS[err.code] ?? 'is invalid'}`;
  req.log.warn({ sqlState: err.code, err: err.message, url: req.url }, 'a value the schema let through was refused by the database');
  return badRequest(field, message);
}

const sendAppError = (err: AppError, req: FastifyRequest, reply: FastifyReply) =>
  reply.code(err.code).headers(err.headers).send({ code: err.code, msg: localizeMessage(err.message, requestLanguage(req)), data: err.data });

/**
 * Fastify's `frameworkErrors`: a URL the router cannot decode (`/open/v1/print/%ZZ`) fails before routing, where
 * the error handler is not reached yet; it answers the same envelope as any bad input, in the caller's language.
 */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  void sendAppError(badRequest('url', err.message), req, reply);
}

/** The one place that builds error responses: everything becomes `{ code, msg, data }`. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((thrown: FastifyError | AppError, req: FastifyRequest, reply: FastifyReply) => {
    const err = dataError(thrown, req) ?? thrown;
    if (err instanceof AppError) {
      if (err.code >= 500) req.log.error({ err }, 'application error');
      return sendAppError(err, req, reply);
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const where = err.validationContext ?? 'body';
      const zh = requestLanguage(req) === 'zh';
      const said: string[] = [];
      const fields: FieldError[] = err.validation.map((v) => {
        // the provider puts the zod issue's code in `keyword` and its other fields in `params` (older: `params.issue`)
        const params = v.params as { issue?: { path?: PropertyKey[]; code?: string; keys?: string[] }; keys?: string[] };
        const issue = params.issue;
        let field = fieldName(issue?.path, v.instancePath, where);
        const unknownKeys = (issue?.code ?? v.keyword) === 'unrecognized_keys' ? (issue?.keys ?? params.keys) : undefined;
        if (unknownKeys?.length) field = [field === where ? '' : field, unknownKeys.join(',')].filter(Boolean).join('.');
        const named = field === 'body' ? where : field;
        const message = v.message ?? 'is invalid';
        said.push(zh ? `${fieldLabel(named)}：${zodIssueZh({ code: issue?.code ?? v.keyword, message, params: (issue ?? v.params) as Record<string, unknown> })}` : `${named}: ${message}`);
        return { field: named, message };
      });
      // data.fields stays en (programs match it); msg is for people, in their language
      const msg = said.join(zh ? '；' : '; ');
      return reply.code(400).send({ code: 400, msg, data: { fields } });
    }
    const status = err.statusCode ?? 500;
    if (status >= 500) {
      req.log.error({ err }, 'unhandled error');
      return reply.code(500).send({ code: 500, msg: localizeMessage(CODE_TEXTS[500], requestLanguage(req)), data: null });
    }
    // Fastify's own client errors (bad JSON, wrong content type, body too large, …): keep the message, map the code.
    const code = (status in CODE_TEXTS ? status : 400) as AppCode;
    let message = err.message || CODE_TEXTS[code];
    // Fastify's 415 no longer names the type it refused: the caller needs it to see their mistake
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' && req.headers['content-type']) message = `Unsupported Media Type: ${req.headers['content-type'].slice(0, 100)}`;
    return reply.code(code).send({ code, msg: localizeMessage(message, requestLanguage(req)), data: null });
  });

  // Node answers an Expect other than 100-continue itself, with an empty 417, unless the server listens for it
  app.server?.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify({ code: 417, msg: localizeMessage(CODE_TEXTS[417], requestLanguage({ headers: req.headers } as FastifyRequest)), data: null });
    res.writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
  });

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
    if (allowed.length) throw new AppError(405, `${req.method} ${path}: method not allowed, use ${allowed.join(', ')}`, null, { allow: allowed.join(', ') });
    reply.code(404).send({ code: 404, msg: localizeMessage(`${req.method} ${req.url.split('?')[0]}: ${CODE_TEXTS[404]}`, requestLanguage(req)), data: null });
  });
}

const ALLOW_ORDER: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** What Node's HTTP parser refuses (no request exists yet): its code as the envelope's code. */
const CLIENT_ERRORS: Record<string, { code: AppCode; msg: string }> = {
  HPE_HEADER_OVERFLOW: { code: 431, msg: CODE_TEXTS[431] },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 408, msg: CODE_TEXTS[408] },
  HPE_HEADER_TIMEOUT: { code: 408, msg: CODE_TEXTS[408] },
};
const STATUS_LINES: Partial<Record<AppCode, string>> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/**
 * Fastify's `clientErrorHandler`: a request Node could not parse (a URL or header over maxHeaderSize, garbage in
 * the request line, a timeout) is answered with the same envelope as any other error, written on the socket
 * since there is no reply. The language is read from the bytes received, when they got that far.
 */
export function clientErrorHandler(this: { log: FastifyBaseLogger }, err: ConnectionError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const known = CLIENT_ERRORS[err.code ?? ''] ?? { code: 400 as AppCode, msg: 'malformed HTTP request' };
  // at run time rawPacket is the Buffer Node was parsing (Fastify's type says its JSON form)
  const received: unknown = err.rawPacket;
  const language: Language = Buffer.isBuffer(received) && /\r\naccept-language:[ \t]*zh/i.test(received.toString('latin1')) ? 'zh' : 'en';
  const body = JSON.stringify({ code: known.code, msg: localizeMessage(known.msg, language), data: null });
  // the bytes received are not logged: they may hold a token
  this.log.debug({ code: err.code }, 'HTTP request refused by the parser');
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${known.code} ${STATUS_LINES[known.code] ?? 'Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

export const ok = <T>(data: T) => ({ code: 200, msg: 'ok', data });
