import type { Db } from '../db/database.ts';

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
}

/** Writes one entry of the system log (DESIGN §4). Details must never hold secrets. */
export async function audit(db: Db, e: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      tenant_id: e.tenantId ?? null,
      user_id: e.userId ?? null,
      ip: e.ip,
      action: e.action,
      resource: e.resource ?? '',
      resource_id: e.resourceId === undefined ? '' : String(e.resourceId),
      result: e.result,
      subject: e.subject ?? '',
      details: JSON.stringify(e.details ?? {}),
    })
    .execute();
}
