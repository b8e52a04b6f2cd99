import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS, CUSTOMER_PERMISSIONS, PERMISSION_CATALOGUE, PERMISSIONS } from '@cpc/contracts';
import { hashPassword } from '../src/lib/password.ts';
import { createHarness, registerCustomer, ADMIN_PASSWORD, type Harness } from './harness.ts';

/**
 * The permission matrix (issue 12): every operation of the console's OpenAPI document, called by every kind of
 * caller, is let through or refused exactly as the permission it declares says. The expectation is computed
 * from the document's `x-permission` and the personas' permissions — never listed by hand — so a new route is
 * covered the moment it exists, and a route that declares nothing cannot start at all (the auth plugin refuses
 * it), nor pass here (an operation without `x-permission` fails the first test).
 */

type Access = 'public' | 'signedIn' | string[];
interface Operation {
  method: string;
  path: string;
  access: Access;
  staffOnly: boolean;
}
interface Persona {
  name: string;
  token: string | null;
  /** The permissions this caller holds; null for the platform Admin, who holds every one. */
  holds: string[] | null;
  kind: 'anonymous' | 'main' | 'sub' | 'staff';
}

const READ_ONLY = PERMISSION_CATALOGUE.flatMap((s) => s.permissions)
  .filter((p) => p.audience === 'tenant' && p.code.endsWith(':view'))
  .map((p) => p.code);

/**
 * Rules that are about the kind of account, not a permission, each with the reason it exists. A route listed
 * here is expected refused for the account kinds the rule names, on top of its declared permission.
 */
const ACCOUNT_RULES: Array<{ method: string; path: RegExp; refuses: Persona['kind'][]; why: string }> = [
  {
    method: 'post',
    path: /^\/apiAdmin\/user\/v1\/user\/authenticate$/,
    refuses: ['sub', 'staff'],
    why: "identity is proven by a customer's main account for its tenant (staff need none)",
  },
];

/** Calls that end the caller's own session: made last for each persona. */
const ENDS_SESSION = new Set(['get /apiAdmin/logout', 'get /apiAdmin/expireToken']);

let h: Harness;
let operations: Operation[];
const personas: Persona[] = [];

async function staffUser(roleCode: string | null, permissions: string[]): Promise<string> {
  const platform = await h.db
    .selectFrom('tenants')
    .select('id')
    .where('kind', '=', 'platform')
    .executeTakeFirstOrThrow();
  const username = `staff_${Math.random().toString(36).slice(2, 8)}`;
  const user = await h.db
    .insertInto('users')
    .values({ tenant_id: platform.id, username, password_hash: await hashPassword('Passw0rd99'), is_super: 2 })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (roleCode) {
    const role = await h.db
      .insertInto('roles')
      .values({ tenant_id: platform.id, code: roleCode, name: roleCode, permissions })
      .returning('id')
      .executeTakeFirstOrThrow();
    await h.db
      .insertInto('user_roles')
      .values({ tenant_id: platform.id, user_id: user.id, role_id: role.id })
      .execute();
  }
  return (await h.login(username, 'Passw0rd99')).token;
}

async function subAccount(
  mainToken: string,
  tenantId: number,
  role: { code: string; permissions: string[]; scope: 'all' | 'department' | 'own' } | null,
): Promise<string> {
  const username = `sub_${Math.random().toString(36).slice(2, 8)}`;
  const created = await h.call({
    method: 'POST',
    url: '/apiAdmin/system/subAccount/create',
    token: mainToken,
    payload: { username, password: 'Passw0rd99', confirmPassword: 'Passw0rd99' },
  });
  expect(created.statusCode, created.body).toBe(200);
  if (role) {
    const r = await h.db
      .insertInto('roles')
      .values({
        tenant_id: tenantId,
        code: role.code,
        name: role.code,
        permissions: role.permissions,
        data_scope: role.scope,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await h.db
      .insertInto('user_roles')
      .values({ tenant_id: tenantId, user_id: created.body_.data.id, role_id: r.id })
      .execute();
  }
  return (await h.login(username, 'Passw0rd99')).token;
}

beforeAll(async () => {
  h = await createHarness();
  const doc = (await h.call({ method: 'GET', url: '/apiAdmin/docs/json' })).body_ as unknown as {
    paths: Record<string, Record<string, { 'x-permission'?: Access; 'x-staff-only'?: true }>>;
  };
  operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([m]) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
      .map(([method, op]) => ({
        method,
        path,
        access: op['x-permission'] as Access,
        staffOnly: op['x-staff-only'] === true,
      })),
  );

  const main = await registerCustomer(h);
  const tenant = await h.db
    .selectFrom('users')
    .select('tenant_id')
    .where('username', '=', main.username)
    .executeTakeFirstOrThrow();
  const dept = { code: 'dept_editor', permissions: [PERMISSIONS.deviceView, PERMISSIONS.deviceEdit] };
  personas.push(
    { name: 'anonymous', token: null, holds: [], kind: 'anonymous' },
    { name: 'customer main account', token: main.token, holds: CUSTOMER_PERMISSIONS, kind: 'main' },
    {
      name: 'sub-account without a role',
      token: await subAccount(main.token, tenant.tenant_id, null),
      holds: [],
      kind: 'sub',
    },
    {
      name: 'sub-account with a read-only role',
      token: await subAccount(main.token, tenant.tenant_id, { code: 'reader', permissions: READ_ONLY, scope: 'all' }),
      holds: READ_ONLY,
      kind: 'sub',
    },
    {
      name: 'sub-account limited to its department',
      token: await subAccount(main.token, tenant.tenant_id, { ...dept, scope: 'department' }),
      holds: dept.permissions,
      kind: 'sub',
    },
    { name: 'staff without a role', token: await staffUser(null, []), holds: [], kind: 'staff' },
    {
      name: 'staff reviewer',
      token: await staffUser('reviewer', [PERMISSIONS.identityReview]),
      holds: [PERMISSIONS.identityReview],
      kind: 'staff',
    },
    { name: 'platform Admin', token: (await h.login('admin', ADMIN_PASSWORD)).token, holds: null, kind: 'staff' },
  );
}, 120_000);
afterAll(() => h.close());

/** Whether the answer is the gate's refusal (not signed in, or signed in without the right), not the route's own. */
function refused(status: number, msg: string): boolean {
  if (status === 401) return /^token missing/.test(msg);
  if (status === 403)
    return /^permission .* required$|^platform staff only$|^only the main account|^platform accounts need no/.test(msg);
  return false;
}

function expected(op: Operation, p: Persona): boolean {
  const rule = ACCOUNT_RULES.find((r) => r.method === op.method && r.path.test(op.path));
  if (rule?.refuses.includes(p.kind)) return false;
  if (op.access === 'public') return true;
  if (p.kind === 'anonymous') return false;
  if (op.staffOnly && p.kind !== 'staff') return false;
  if (op.access === 'signedIn') return true;
  return p.holds === null || op.access.some((code) => p.holds!.includes(code));
}

const concretePath = (path: string) => path.replace(/\{[^}]+\}/g, '1');

describe('the permission matrix', () => {
  it('has a declared access for every operation of the document, each permission from the catalogue', () => {
    expect(operations.length).toBeGreaterThan(60);
    const undeclared = operations.filter((o) => o.access === undefined).map((o) => `${o.method} ${o.path}`);
    expect(undeclared).toEqual([]);
    const unknown = operations
      .flatMap((o) => (Array.isArray(o.access) ? o.access : []))
      .filter((code) => !(ALL_PERMISSIONS as string[]).includes(code));
    expect(unknown).toEqual([]);
  });

  it('lets through exactly the callers the declared permission allows, on every operation', async () => {
    const mismatches: string[] = [];
    for (const p of personas) {
      const ordered = [
        ...operations.filter((o) => !ENDS_SESSION.has(`${o.method} ${o.path}`)),
        ...operations.filter((o) => ENDS_SESSION.has(`${o.method} ${o.path}`)),
      ];
      for (const op of ordered) {
        const res = await h.call({
          method: op.method.toUpperCase() as 'GET',
          url: concretePath(op.path),
          token: p.token ?? undefined,
          headers: { 'accept-language': 'en' },
          // an empty body: a call let through stops at validation and changes nothing
          ...(op.method === 'get' ? {} : { payload: {} }),
        });
        const got = !refused(res.statusCode, res.body_?.msg ?? '');
        if (got !== expected(op, p)) {
          mismatches.push(
            `${p.name}: ${op.method.toUpperCase()} ${op.path} (${JSON.stringify(op.access)}) ` +
              `expected ${expected(op, p) ? 'allowed' : 'refused'}, got ${res.statusCode} ${res.body_?.msg ?? ''}`,
          );
        }
        expect(res.statusCode, `${p.name} ${op.method} ${op.path}: ${res.body}`).toBeLessThan(500);
      }
    }
    expect(mismatches).toEqual([]);
  }, 300_000);
});
