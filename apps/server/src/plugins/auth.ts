import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { ADMIN_ROLE, ALL_PERMISSIONS, CUSTOMER_PERMISSIONS, type DataScope } from '@cpc/contracts';
import type { Db } from '../db/database.ts';
import { TenantScope } from '../db/tenant-scope.ts';
import type { AccessTokens } from '../lib/tokens.ts';
import { AppError } from './errors.ts';
import type { AuthUser } from '../lib/auth-user.ts';
import { audit } from '../lib/audit.ts';

export type { AuthUser } from '../lib/auth-user.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: public route. Default: a valid bearer token is required. */
    auth?: false;
    /** A permission the caller must hold (admins hold all); a list means any one of them. */
    permission?: string | readonly string[];
    /**
     * Declares a signed-in route that needs no permission of the catalogue (the caller's own profile, menu,
     * sessions…). Every route states one of `auth: false`, `permission` or `access` (issue 12).
     */
    access?: 'signedIn';
    /** Platform staff only, whatever the caller holds: set by `restrictToStaff`, read by the API document. */
    staffOnly?: true;
  }
  interface FastifyRequest {
    user: AuthUser | null;
  }
}

/** What a console route asks of its caller, as its `config` declares it (issue 12). */
export type RouteAccess = ({ kind: 'public' } | { kind: 'signedIn' } | { kind: 'permission'; anyOf: string[] }) & {
  staffOnly?: true;
};

export function routeAccessOf(config: FastifyContextConfig | undefined): RouteAccess | null {
  const staff = config?.staffOnly ? { staffOnly: true as const } : {};
  if (config?.auth === false) return { kind: 'public' };
  if (config?.permission) return { kind: 'permission', anyOf: [config.permission].flat(), ...staff };
  if (config?.access === 'signedIn') return { kind: 'signedIn', ...staff };
  return null;
}

export function hasPermission(user: AuthUser, permission: string): boolean {
  return user.admin || user.permissions.includes(permission);
}

/** Loads the caller behind a verified token; a revoked session or a disabled user ends here with 401. */
export async function loadAuthUser(db: Db, userId: number, tenantId: number, sessionId: string): Promise<AuthUser> {
  const row = await db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('tenants as t', 't.id', 'u.tenant_id')
    .leftJoin('departments as d', (j) =>
      j.onRef('d.id', '=', 'u.department_id').onRef('d.tenant_id', '=', 'u.tenant_id'),
    )
    .select([
      'd.id as department_id',
      'd.path as department_path',
      'u.id',
      'u.tenant_id',
      'u.username',
      'u.is_super',
      'u.state',
      't.kind',
      't.auth_status',
      's.revoked_at',
      sql<
        string[]
      >`coalesce((select array_agg(r.code) from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = u.id), '{}')`.as(
        'roles',
      ),
      sql<
        string[]
      >`coalesce((select array_agg(distinct p) from user_roles ur join roles r on r.id = ur.role_id, unnest(r.permissions) p where ur.user_id = u.id), '{}')`.as(
        'role_permissions',
      ),
      sql<
        DataScope[]
      >`coalesce((select array_agg(r.data_scope) from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = u.id), '{}')`.as(
        'data_scopes',
      ),
    ])
    .where('s.id', '=', sessionId)
    .where('u.id', '=', userId)
    .where('u.tenant_id', '=', tenantId)
    .executeTakeFirst();
  if (!row || row.revoked_at || row.state !== 'active') throw new AppError(401, 'auth.loginExpired');
  const admin = row.kind === 'platform' && row.roles.includes(ADMIN_ROLE);
  const permissions =
    row.kind !== 'platform' && row.is_super === 1
      ? [...new Set([...CUSTOMER_PERMISSIONS, ...row.role_permissions])]
      : row.role_permissions;
  return {
    id: row.id,
    tenantId: row.tenant_id,
    sessionId,
    username: row.username,
    isSuper: row.is_super,
    tenantKind: row.kind,
    authStatus: row.auth_status,
    admin,
    roles: row.roles,
    permissions,
    dataScopes: row.data_scopes,
    departmentId: row.department_id ?? null,
    departmentPath: row.department_path ?? null,
    scope: new TenantScope(db, row.tenant_id),
  };
}

/** A session's last-active time is written at most this often: the sessions list reads minutes, not requests. */
export const LAST_ACTIVE_EVERY_MS = 60_000;
/** Sessions whose last write this node remembers; the oldest is forgotten first. */
const LAST_ACTIVE_REMEMBERED = 50_000;

/** Authenticates every route unless it is marked `config: { auth: false }`, then checks its permission. */
export function registerAuth(app: FastifyInstance, db: Db, tokens: AccessTokens): void {
  app.decorateRequest('user', null);
  // a route that says nothing about who may call it is a mistake caught at start, not a route open to everyone
  app.addHook('onRoute', (route) => {
    const access = routeAccessOf(route.config);
    if (!access) {
      throw new Error(
        `${String(route.method)} ${route.url} declares no access: set config.permission, config.access or config.auth`,
      );
    }
    const unknown =
      access.kind === 'permission' && access.anyOf.find((p) => !(ALL_PERMISSIONS as string[]).includes(p));
    if (unknown) throw new Error(`${String(route.method)} ${route.url} needs ${unknown}, which the catalogue lacks`);
  });
  const lastWritten = new Map<string, number>();
  const touch = async (sessionId: string) => {
    const now = Date.now();
    if (now - (lastWritten.get(sessionId) ?? 0) < LAST_ACTIVE_EVERY_MS) return;
    lastWritten.delete(sessionId);
    if (lastWritten.size >= LAST_ACTIVE_REMEMBERED) lastWritten.delete(lastWritten.keys().next().value!);
    lastWritten.set(sessionId, now);
    // the condition keeps other nodes (or a restart) from writing the same minute again
    await db
      .updateTable('sessions')
      .set({ last_active_at: new Date(now) })
      .where('id', '=', sessionId)
      .where('last_active_at', '<', new Date(now - LAST_ACTIVE_EVERY_MS))
      .execute();
  };
  // Every refused access (403: a permission the caller lacks, a staff-only or main-account-only screen, a bad
  // signed link) is written to the system log before the answer. 401s (no, expired or revoked token) are not:
  // every tab past its token's lifetime makes them, and the failed sign-ins that matter are logged as such.
  app.addHook('onError', async (req, _reply, thrown) => {
    const error: unknown = thrown;
    if (!(error instanceof AppError) || error.code !== 403) return;
    await audit(db, {
      tenantId: req.user?.tenantId ?? null,
      userId: req.user?.id ?? null,
      ip: req.ip,
      action: 'access.denied',
      resource: 'route',
      resourceId: `${req.method} ${req.routeOptions.url ?? req.url.split('?')[0]}`,
      result: 'denied',
      details: { reason: error.key, ...(error.params ?? {}) },
    });
  });
  app.addHook('onRequest', async (req: FastifyRequest) => {
    const config = req.routeOptions.config ?? {};
    if (config.auth === false || !req.routeOptions.url) return;
    const header = req.headers.authorization ?? '';
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (!m) throw new AppError(401, 'auth.tokenMissing');
    const claims = await tokens.verify(m[1]);
    req.user = await loadAuthUser(db, claims.userId, claims.tenantId, claims.sessionId);
    await touch(claims.sessionId);
    const needed = config.permission === undefined ? [] : [config.permission].flat();
    if (needed.length && !needed.some((p) => hasPermission(req.user!, p))) {
      throw new AppError(403, 'auth.permissionRequired', { permission: needed.join(' | ') });
    }
  });
}

/** The authenticated caller of a route that requires one. */
export function caller(req: FastifyRequest): AuthUser {
  if (!req.user) throw new AppError(401, 'http.401');
  return req.user;
}

/** Who did what the audit log records for a call: the signed-in caller's tenant and id, and the client address. */
export function actorOf(req: FastifyRequest): { tenantId: number; userId: number; ip: string } {
  const user = caller(req);
  return { tenantId: user.tenantId, userId: user.id, ip: req.ip };
}

/**
 * Makes every route registered after it in this plugin platform-staff only: declared in the route's config (the
 * API document and the permission matrix read it) and enforced by `staffOnly` right after the sign-in check.
 */
export function restrictToStaff(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, staffOnly: true };
  });
  // before the body is read, like the permission gate: a customer learns it may not, not what to fix
  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.url) await staffOnly(req);
  });
}

/** A preHandler for staff screens: staff permissions are never meant for customers, so a customer role that somehow holds one is still refused. */
export async function staffOnly(req: FastifyRequest): Promise<void> {
  if (caller(req).tenantKind !== 'platform') throw new AppError(403, 'auth.staffOnly');
}
