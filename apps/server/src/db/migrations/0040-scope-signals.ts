import { sql, type Kysely } from 'kysely';

/**
 * What a live-event stream of a reader narrower than its account (data scope `own` or `department`) must hear at
 * once: that the account's devices moved (bound, unbound, another department or owner), a SIM went to another
 * device, the department tree or a user's department changed, or a role's permissions or scope, or a user's
 * roles. These triggers say so on the `cpc_scope` channel with the tenant id, whatever code made the change, so
 * every node's streams of that account read their scope again before judging the next event
 * (plugins/live-events.ts). PostgreSQL delivers a payload once per transaction however many rows it changed.
 * Hot writes (a device's status, a SIM's usage) name none of these columns and fire nothing. Never edit once
 * landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION cpc_scope_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.tenant_id IS NOT NULL THEN
        PERFORM pg_notify('cpc_scope', OLD.tenant_id::text);
      END IF;
      IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.tenant_id IS NOT NULL THEN
        PERFORM pg_notify('cpc_scope', NEW.tenant_id::text);
      END IF;
      RETURN NULL;
    END $$;

    CREATE TRIGGER devices_scope_changed AFTER UPDATE OF tenant_id, department_id, owner_id ON devices
      FOR EACH ROW WHEN (OLD.tenant_id IS DISTINCT FROM NEW.tenant_id
        OR OLD.department_id IS DISTINCT FROM NEW.department_id OR OLD.owner_id IS DISTINCT FROM NEW.owner_id)
      EXECUTE FUNCTION cpc_scope_changed();
    CREATE TRIGGER devices_scope_added AFTER INSERT OR DELETE ON devices
      FOR EACH ROW EXECUTE FUNCTION cpc_scope_changed();

    CREATE TRIGGER sims_scope_changed AFTER UPDATE OF tenant_id, device_id ON sims
      FOR EACH ROW WHEN (OLD.tenant_id IS DISTINCT FROM NEW.tenant_id OR OLD.device_id IS DISTINCT FROM NEW.device_id)
      EXECUTE FUNCTION cpc_scope_changed();
    CREATE TRIGGER sims_scope_added AFTER INSERT OR DELETE ON sims
      FOR EACH ROW EXECUTE FUNCTION cpc_scope_changed();

    CREATE TRIGGER departments_scope_changed AFTER INSERT OR DELETE OR UPDATE OF path, parent_id ON departments
      FOR EACH ROW EXECUTE FUNCTION cpc_scope_changed();

    CREATE TRIGGER users_scope_changed AFTER UPDATE OF department_id, state ON users
      FOR EACH ROW WHEN (OLD.department_id IS DISTINCT FROM NEW.department_id OR OLD.state IS DISTINCT FROM NEW.state)
      EXECUTE FUNCTION cpc_scope_changed();

    CREATE TRIGGER roles_scope_changed AFTER UPDATE OF permissions, data_scope OR DELETE ON roles
      FOR EACH ROW EXECUTE FUNCTION cpc_scope_changed();

    CREATE TRIGGER user_roles_scope_changed AFTER INSERT OR DELETE ON user_roles
      FOR EACH ROW EXECUTE FUNCTION cpc_scope_changed();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TRIGGER user_roles_scope_changed ON user_roles;
    DROP TRIGGER roles_scope_changed ON roles;
    DROP TRIGGER users_scope_changed ON users;
    DROP TRIGGER departments_scope_changed ON departments;
    DROP TRIGGER sims_scope_added ON sims;
    DROP TRIGGER sims_scope_changed ON sims;
    DROP TRIGGER devices_scope_added ON devices;
    DROP TRIGGER devices_scope_changed ON devices;
    DROP FUNCTION cpc_scope_changed();
  `.execute(db);
}
