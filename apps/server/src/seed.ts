import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { ADMIN_ROLE, AUTH_STATUS, PERMISSIONS } from '@cpc/contracts';
import type { Db } from './db/database.ts';
import { hashPassword } from './lib/password.ts';
import { seedMenus } from './modules/menu/index.ts';

export interface AdminCredentials {
  username: string;
  /** Set only when the password was generated or taken from ADMIN_PASSWORD at this start. */
  password?: string;
  generated: boolean;
}

/**
 * The platform tenant, its Admin role, the `admin` user and the menu. Idempotent, and one node at a time: nodes
 * started together on a fresh database would each find no platform tenant and make one (the cluster test starts
 * three at once); under the lock the first seeds and the others find it done.
 */
export async function seed(db: Db, adminPassword?: string): Promise<AdminCredentials> {
  return db.connection().execute(async (conn) => {
    await sql`SELECT pg_advisory_lock(hashtext('cpc-seed'))`.execute(conn);
    try {
      return await seedOnce(conn, adminPassword);
    } finally {
      await sql`SELECT pg_advisory_unlock(hashtext('cpc-seed'))`.execute(conn);
    }
  });
}

async function seedOnce(db: Db, adminPassword?: string): Promise<AdminCredentials> {
  await seedMenus(db);
  let platform = await db.selectFrom('tenants').select('id').where('kind', '=', 'platform').executeTakeFirst();
  platform ??= await db
    .insertInto('tenants')
    .values({ kind: 'platform', name: 'platform', auth_status: AUTH_STATUS.authenticated })
    .returning('id')
    .executeTakeFirstOrThrow();
  const role = await db
    .insertInto('roles')
    .values({
      tenant_id: platform.id,
      code: ADMIN_ROLE,
      name: 'Administrator',
      permissions: Object.values(PERMISSIONS),
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'code']).doUpdateSet({ permissions: Object.values(PERMISSIONS) }))
    .returning('id')
    .executeTakeFirstOrThrow();
  const admin = await db.selectFrom('users').select('id').where('username', '=', 'admin').executeTakeFirst();
  if (admin) {
    if (adminPassword)
      await db
        .updateTable('users')
        .set({ password_hash: await hashPassword(adminPassword) })
        .where('id', '=', admin.id)
        .execute();
    return { username: 'admin', password: adminPassword, generated: false };
  }
  const password = adminPassword ?? generatePassword();
  const user = await db
    .insertInto('users')
    .values({
      tenant_id: platform.id,
      username: 'admin',
      mobile: null,
      password_hash: await hashPassword(password),
      is_super: 1,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.insertInto('user_roles').values({ tenant_id: platform.id, user_id: user.id, role_id: role.id }).execute();
  return { username: 'admin', password, generated: !adminPassword };
}

/** 16 characters with upper, lower and digits, so it also passes the registration rule. */
function generatePassword(): string {
  const b = randomBytes(12).toString('base64url').replace(/[-_]/g, 'x');
  return `Cp9${b}`.slice(0, 16);
}
