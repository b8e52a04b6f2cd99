import type { Db } from '../db/database.ts';

/** One changed field of a system-log entry: its value before and after the change. */
export interface FieldChange {
  before: unknown;
  after: unknown;
}

export interface AuditEntry {
  tenantId?: number | null;
  userId?: number | null;
  ip: string;
  action: string;
  resource?: string;
  resourceId?: string | number;
  result: 'ok' | 'fail' | 'denied';
  /** The account name a login attempt was for (kept for throttling, never the password). */
  subject?: string;
  details?: Record<string, unknown>;
  /** The fields a change touched, before → after (see `changedFields`); secrets are masked. */
  changes?: Record<string, FieldChange>;
}

/** Field names whose values never reach the system log, whatever a caller passes (compared lower-case, without _ or -). */
const SECRET = /password|passwd|secret|token|bindkey|privatekey|apikey|hash$/;
const MASK = '***';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const isSecret = (field: string) => SECRET.test(field.toLowerCase().replace(/[_-]/g, ''));

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The fields that differ between `before` and `after` (only the keys of `after` are compared, so a partial
 * update lists what it set and changed). A new object is `changedFields({}, row)`, a deleted one
 * `changedFields(row, {})` with the keys of `before`. Secret fields are kept as changed but masked.
 */
export function changedFields(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Record<string, FieldChange> {
  const keys = Object.keys(after).length ? Object.keys(after) : Object.keys(before);
  const out: Record<string, FieldChange> = {};
  for (const k of keys) {
    const b = before[k];
    const a = Object.keys(after).length ? after[k] : undefined;
    if (same(b, a)) continue;
    out[k] = isSecret(k) ? { before: MASK, after: MASK } : { before: b ?? null, after: a ?? null };
  }
  return out;
}

/** Masks secret fields of free-form details at any depth (a caller's mistake must not leak a password). */
function scrub(value: unknown, depth = 0): unknown {
  // a lone surrogate is valid text to the server but not to jsonb: kept as U+FFFD, as PostgreSQL keeps it in text
  if (typeof value === 'string') return value.replace(LONE_SURROGATE, '\uFFFD');
  if (depth > 5 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [scrub(k) as string, isSecret(k) ? MASK : scrub(v, depth + 1)]),
  );
}

/** The row `audit` writes for an entry: secret-named fields masked, text made safe for jsonb. */
export function auditRow(e: AuditEntry) {
  // a change keeps its { before, after } shape, masked inside when its field is a secret
  const changes = e.changes
    ? Object.fromEntries(
        Object.entries(e.changes).map(([k, c]) => [
          k,
          isSecret(k) ? { before: MASK, after: MASK } : { before: scrub(c.before), after: scrub(c.after) },
        ]),
      )
    : undefined;
  const details = { ...(scrub(e.details ?? {}) as Record<string, unknown>), ...(changes ? { changes } : {}) };
  return {
    tenant_id: e.tenantId ?? null,
    user_id: e.userId ?? null,
    ip: e.ip,
    action: e.action,
    resource: e.resource ?? '',
    resource_id: e.resourceId === undefined ? '' : String(e.resourceId),
    result: e.result,
    subject: e.subject ?? '',
    details: JSON.stringify(details),
  };
}

/**
 * Writes one entry of the system log (DESIGN §4) before the request answers, so an answered change is never
 * missing from it. Details and changes never hold secrets: secret-named fields are masked here.
 */
export async function audit(db: Db, e: AuditEntry): Promise<void> {
  await db.insertInto('audit_log').values(auditRow(e)).execute();
}
