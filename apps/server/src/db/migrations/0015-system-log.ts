import { sql, type Kysely } from 'kysely';

/**
 * The system log's searches (issue 12): every list is newest first and paged by the key (at, id), so each index
 * ends in `at DESC, id DESC` and a page — the first or the thousandth, by cursor — is a short index range scan:
 * - every tenant (staff, no filter) and any time range: (at, id);
 * - one tenant (a customer, or staff picking one): (tenant_id, at, id), replacing (tenant_id, at); with an action
 *   (the customer's usual search): (tenant_id, action, at, id);
 * - one user (the user filter resolves names to ids first): (user_id, at, id);
 * - an action (exact, or a prefix such as `device.` with text_pattern_ops for LIKE): (action, at, id);
 * - an object: (resource, resource_id, at, id).
 * - a result other than ok (fail, denied: a few percent of the entries), alone or in one tenant: two small partial
 *   indexes (result, at, id) and (tenant_id, result, at, id) WHERE result <> 'ok'; `ok` rides on the others.
 * Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX audit_tenant_idx;
    CREATE INDEX audit_at_idx ON audit_log (at DESC, id DESC);
    CREATE INDEX audit_tenant_at_idx ON audit_log (tenant_id, at DESC, id DESC);
    CREATE INDEX audit_user_at_idx ON audit_log (user_id, at DESC, id DESC) WHERE user_id IS NOT NULL;
    CREATE INDEX audit_action_at_idx ON audit_log (action text_pattern_ops, at DESC, id DESC);
    CREATE INDEX audit_tenant_action_at_idx ON audit_log (tenant_id, action text_pattern_ops, at DESC, id DESC);
    CREATE INDEX audit_object_at_idx ON audit_log (resource, resource_id, at DESC, id DESC) WHERE resource <> '';
    CREATE INDEX audit_result_at_idx ON audit_log (result, at DESC, id DESC) WHERE result <> 'ok';
    CREATE INDEX audit_tenant_result_at_idx ON audit_log (tenant_id, result, at DESC, id DESC) WHERE result <> 'ok';
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX audit_at_idx, audit_tenant_at_idx, audit_user_at_idx, audit_action_at_idx, audit_object_at_idx,
      audit_result_at_idx, audit_tenant_result_at_idx, audit_tenant_action_at_idx;
    CREATE INDEX audit_tenant_idx ON audit_log (tenant_id, at DESC);
  `.execute(db);
}
