import { z } from 'zod';
import { OPEN_ERROR_RESPONSES } from '@cpc/contracts/open-api';

type Operation = { responses?: Record<string, unknown>; parameters?: unknown[] };
type Document = {
  components?: { schemas?: Record<string, unknown> };
  paths?: Record<string, Record<string, Operation>>;
};

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

const CONTENT_SHA256 = {
  in: 'header',
  name: 'X-CPC-Content-Sha256',
  required: false,
  description:
    'Optional: lower-case hex SHA-256 of the body sent. A body that does not match it is refused (401 body_mismatch) before the signature is checked.',
  schema: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' },
};

/**
 * The error answers of the open API in its own OpenAPI document: every call lists 400, 401, 404 and 429 (with
 * `Retry-After`) beside its 200, their envelopes and reason codes from the contracts, and the optional
 * X-CPC-Content-Sha256 header. Added to the document only: the route schemas stay 200-only, so an error answer
 * is never held to a serializer's schema.
 */
export function withOpenErrorResponses<D>(doc: D): D {
  const d = doc as Document;
  d.components ??= {};
  d.components.schemas ??= {};
  const refs: Record<string, unknown> = {};
  for (const [code, r] of Object.entries(OPEN_ERROR_RESPONSES)) {
    const name = `OpenError${code}`;
    d.components.schemas[name] = z.toJSONSchema(r.schema, { target: 'openapi-3.0', io: 'output' });
    refs[code] = {
      description: r.description,
      ...(code === '429'
        ? {
            headers: {
              'Retry-After': {
                description: 'Seconds until the key’s window frees (at least 1)',
                schema: { type: 'integer', minimum: 1 },
              },
            },
          }
        : {}),
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
    };
  }
  for (const item of Object.values(d.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      op.responses = { ...op.responses, ...refs };
      op.parameters = [...(op.parameters ?? []), CONTENT_SHA256];
    }
  }
  return doc;
}
