import type { FastifyInstance, FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { z } from 'zod';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { groupNode } from '@cpc/contracts/device';
import { departmentNode } from '@cpc/contracts/department';
import { menuNode, routeRecord } from '@cpc/contracts/menu';
import { OPEN_API_PREFIX } from '@cpc/contracts/open-api';
import { withOpenErrorResponses } from './open-api-errors.ts';
import { REFRESH_COOKIE } from '@cpc/contracts/auth';
import type { Db } from '../db/database.ts';
import { AppError } from './errors.ts';
import { sha256, type AccessTokens } from '../lib/tokens.ts';
import { loadAuthUser, routeAccessOf, type RouteAccess } from './auth.ts';

type Operation = {
  operationId?: string;
  description?: string;
  'x-permission'?: string | string[];
  'x-staff-only'?: true;
  responses?: Record<string, unknown>;
  parameters?: { name: string; in: string }[];
};
type PathItem = Record<string, Operation>;
type Document = {
  servers?: { url: string; description?: string }[];
  info: { license?: { name: string; url?: string } };
  paths?: Record<string, PathItem>;
  components?: { schemas?: Record<string, unknown> };
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * Schemas the documents name as components: the recursive ones (a menu record holds menu records, a group holds
 * groups) cannot be written inline, so they are referenced by name. A registry of the documents' own, so that
 * nothing another part of the code registers with zod's global one lands in them.
 */
const consoleSchemas = z.registry<{ id: string }>();
consoleSchemas.add(routeRecord, { id: 'RouteRecord' });
consoleSchemas.add(groupNode, { id: 'GroupNode' });
consoleSchemas.add(departmentNode, { id: 'DepartmentNode' });
consoleSchemas.add(menuNode, { id: 'MenuNode' });
const openSchemas = z.registry<{ id: string }>();

/** `GET /apiAdmin/device/task/batch/{id}` → `getDeviceTaskBatchById`: stable, unique, readable by client generators. */
export function operationIdOf(method: string, path: string, prefix: string): string {
  const words = path
    .slice(prefix.length)
    .split('/')
    .filter(Boolean)
    .map((seg) => (seg.startsWith('{') ? `by-${seg.slice(1, -1)}` : seg))
    .flatMap((seg) => seg.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return [method, ...words].map((w, i) => (i === 0 ? w.toLowerCase() : w[0]!.toUpperCase() + w.slice(1))).join('');
}

const ERROR_ENVELOPE = {
  type: 'object',
  required: ['code', 'msg', 'data'],
  properties: {
    code: { type: 'integer', description: 'The same code as the HTTP status (SPEC §8)' },
    msg: { type: 'string', description: "For people, in the caller's language (Accept-Language)" },
    data: {
      type: 'object',
      nullable: true,
      additionalProperties: true,
      description: 'For programs: `fields` of a validation error, `resource` of a 404, `retryAfter` of a 429',
    },
  },
};
const CONSOLE_ERRORS: Record<string, string> = {
  '400': 'The request is wrong: `msg` names the field and why, `data.fields` lists them',
  '401': 'No valid session (token missing, invalid or ended)',
  '402': 'The access token expired: exchange the refresh cookie at GET /refreshToken and call again',
  '403': 'Signed in, but this account may not do this',
  '404': "The resource does not exist or is another account's",
  '429': 'Too many requests: `Retry-After` says when to call again',
};

/**
 * What the generated documents need beyond the route schemas to pass a standard linter (redocly's recommended
 * rules) and feed client generators: servers, a licence, an operationId per operation, error answers, the wildcard
 * object path named, and no component nobody references.
 */
/** A Fastify route url as the document writes its path (`/device/:id` → `/device/{id}`, the wildcard named key). */
const documentPath = (url: string) => url.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{key}');

/**
 * What each console operation asks of its caller, written into the document as `x-permission` (`public`,
 * `signedIn`, or the permission codes of which one is needed) and in words in its description; the permission
 * matrix test reads it back and checks the server agrees.
 */
function describeAccess(op: Operation, access: RouteAccess | undefined): void {
  if (!access) return;
  const [value, words] =
    access.kind === 'public'
      ? ['public', 'Public: no sign-in needed.']
      : access.kind === 'signedIn'
        ? ['signedIn', 'Any signed-in user.']
        : [access.anyOf, `Needs the permission ${access.anyOf.map((p) => `\`${p}\``).join(' or ')}.`];
  op['x-permission'] = value;
  if (access.staffOnly) op['x-staff-only'] = true;
  const all = access.staffOnly ? `${words} Platform staff only.` : words;
  op.description = op.description ? `${op.description}\n\n${all}` : all;
}

function finish(
  doc: Document,
  prefix: string,
  errors: Record<string, string> | null,
  access?: Map<string, RouteAccess>,
): Document {
  doc.servers = [{ url: '/', description: 'This server' }];
  doc.info.license = { name: 'Proprietary', url: 'https://example.invalid/cloud-print-console/license' };
  const paths: Record<string, PathItem> = {};
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    // `/objects/*` is the object's key (it may hold slashes)
    const named = path.replace('{*}', '{key}');
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      op.operationId ??= operationIdOf(method, named, prefix);
      if (access) describeAccess(op, access.get(`${method} ${named}`));
      for (const p of op.parameters ?? []) if (p.in === 'path' && p.name === '*') p.name = 'key';
      if (errors) {
        const own = { ...op.responses };
        for (const code of Object.keys(errors)) own[code] ??= { $ref: `#/components/responses/Error${code}` };
        op.responses = own;
      }
    }
    paths[named] = item;
  }
  doc.paths = paths;
  if (errors) {
    const d = doc as Document & { components: { responses?: Record<string, unknown> } };
    d.components ??= {};
    d.components.schemas = { ...d.components.schemas, ErrorEnvelope: ERROR_ENVELOPE };
    d.components.responses = Object.fromEntries(
      Object.entries(errors).map(([code, description]) => [
        `Error${code}`,
        {
          description,
          ...(code === '429'
            ? {
                headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer', minimum: 1 } } },
              }
            : {}),
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
        },
      ]),
    );
  }
  pruneComponents(doc);
  return doc;
}

/** Drops component schemas that nothing reaches (the zod registry writes an input and an output variant of each). */
function pruneComponents(doc: Document): void {
  const schemas = doc.components?.schemas;
  if (!schemas) return;
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) {
        const name = v.slice('#/components/schemas/'.length);
        if (!used.has(name)) {
          used.add(name);
          visit(schemas[name]);
        }
      } else visit(v);
    }
  };
  const { schemas: _own, ...rest } = doc.components!;
  visit(doc.paths);
  visit(rest);
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}

/** Who reads the console API's document and its UI: anyone, signed-in users only, or nobody (404). */
export type ApiDocsAccess = 'public' | 'signed-in' | 'off';

/**
 * Whether the request comes from a signed-in user: a valid bearer token (tools, scripts), or else the refresh
 * cookie of a live session (a browser that opens /apiAdmin/docs: a page cannot send a header, and the cookie's
 * path /apiAdmin covers the UI and its fetch of the document). The cookie is only read, never rotated.
 */
async function signedIn(req: FastifyRequest, db: Db, tokens: AccessTokens): Promise<boolean> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (bearer) {
    const claims = await tokens.verify(bearer[1]!);
    await loadAuthUser(db, claims.userId, claims.tenantId, claims.sessionId);
    return true;
  }
  const cookie = req.cookies?.[REFRESH_COOKIE];
  if (!cookie) return false;
  const live = await db
    .selectFrom('refresh_tokens as r')
    .innerJoin('sessions as s', 's.id', 'r.session_id')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select('r.session_id')
    .where('r.token_hash', '=', sha256(cookie))
    .where('r.used_at', 'is', null)
    .where('r.expires_at', '>', new Date())
    .where('s.revoked_at', 'is', null)
    .where('u.state', '=', 'active')
    .executeTakeFirst();
  return Boolean(live);
}

/**
 * The two OpenAPI documents: the console API's (`/apiAdmin/docs/json`, with a UI) and the open API's
 * (`/open/v1/docs/json`, public: the contract integrators build against). `access` says who reads the console's
 * document and UI (every route under `/apiAdmin/docs`, its static files included).
 */
export async function registerApiDocs(
  app: FastifyInstance,
  consolePrefix: string,
  opts: { access: ApiDocsAccess; db: Db; tokens: AccessTokens } | { access: 'public' } = { access: 'public' },
): Promise<void> {
  const isOpen = (url: string) => url.startsWith(`${OPEN_API_PREFIX}/`);
  const accessByRoute = new Map<string, RouteAccess>();
  const consoleTransform = createJsonSchemaTransform({ schemaRegistry: consoleSchemas });
  const consoleObject = createJsonSchemaTransformObject({
    schemaRegistry: consoleSchemas,
    zodToJsonConfig: { target: 'openapi-3.0' },
  });
  const openTransform = createJsonSchemaTransform({ schemaRegistry: openSchemas });
  const openObject = createJsonSchemaTransformObject({
    schemaRegistry: openSchemas,
    zodToJsonConfig: { target: 'openapi-3.0' },
  });
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Cloud Print Console API',
        version: '1.0.0',
        description: 'Console API under /apiAdmin. Every response is `{ code, msg, data }`.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    // the open API has its own document (/open/v1/docs/json)
    transform: (t) => {
      if (isOpen(t.url)) return { schema: { hide: true }, url: t.url };
      const access = routeAccessOf(t.route.config);
      if (access)
        for (const m of [t.route.method].flat()) accessByRoute.set(`${m.toLowerCase()} ${documentPath(t.url)}`, access);
      return consoleTransform(t);
    },
    transformObject: (o) => finish(consoleObject(o) as Document, consolePrefix, CONSOLE_ERRORS, accessByRoute) as never,
  });
  await app.register(swagger, {
    decorator: 'openSwagger',
    openapi: {
      info: {
        title: 'Cloud Print open API',
        version: '1.0.0',
        description:
          'Signed calls of your own software: see docs/open-api.md. Every response is `{ code, msg, data }`.',
      },
      components: {
        securitySchemes: {
          appId: { type: 'apiKey', in: 'header', name: 'X-CPC-App-Id' },
          timestamp: { type: 'apiKey', in: 'header', name: 'X-CPC-Timestamp' },
          nonce: { type: 'apiKey', in: 'header', name: 'X-CPC-Nonce' },
          signature: { type: 'apiKey', in: 'header', name: 'X-CPC-Signature' },
        },
      },
      security: [{ appId: [], timestamp: [], nonce: [], signature: [] }],
    },
    transform: (t) => (isOpen(t.url) ? openTransform(t) : { schema: { hide: true }, url: t.url }),
    transformObject: (o) => finish(withOpenErrorResponses(openObject(o) as Document), OPEN_API_PREFIX, null) as never,
  });
  // off: the UI and its documents are not there at all (404, as any path that does not exist)
  if (opts.access === 'off') return;
  // in a scope of its own, so that the gate covers every route the UI registers, its static files included
  await app.register(async (scope) => {
    if (opts.access === 'signed-in') {
      const { db, tokens } = opts;
      scope.addHook('onRequest', async (req: FastifyRequest) => {
        if (!(await signedIn(req, db, tokens))) throw new AppError(401, 'auth.tokenMissing');
      });
    }
    await scope.register(swaggerUi, { routePrefix: `${consolePrefix}/docs` });
  });
}
