import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import pg from 'pg';
import { CODE_TEXTS, type AppCode, type FieldError } from '@cpc/contracts';
import { fieldLabel, localizeMessage, requestLanguage, zodIssueZh } from '../lib/i18n/localize.ts';

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

/** The one place that builds error responses: everything becomes `{ code, msg, data }`. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((thrown: FastifyError | AppError, req: FastifyRequest, reply: FastifyReply) => {
    const err = dataError(thrown, req) ?? thrown;
    if (err instanceof AppError) {
      if (err.code >= 500) req.log.error({ err }, 'application error');
      return reply.code(err.code).headers(err.headers).send({ code: err.code, msg: localizeMessage(err.message, requestLanguage(req)), data: err.data });
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
    return reply.code(code).send({ code, msg: localizeMessage(err.message || CODE_TEXTS[code], requestLanguage(req)), data: null });
  });

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send({ code: 404, msg: localizeMessage(`${req.method} ${req.url.split('?')[0]}: ${CODE_TEXTS[404]}`, requestLanguage(req)), data: null });
  });
}

export const ok = <T>(data: T) => ({ code: 200, msg: 'ok', data });
