import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { envelopeSchema, filterRoutes, type RouteMeta, type RouteRecord } from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import { caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';

export const routeRecord: z.ZodType<RouteRecord> = z.lazy(() =>
  z.object({
    path: z.string(),
    name: z.string(),
    component: z.string().optional(),
    redirect: z.string().optional(),
    meta: z.record(z.string(), z.unknown()) as unknown as z.ZodType<RouteMeta>,
    children: z.array(routeRecord).optional(),
  }),
);

export async function loadMenuTree(db: Db): Promise<RouteRecord[]> {
  const rows = await db.selectFrom('menus').selectAll().orderBy('sort').orderBy('id').execute();
  const byParent = new Map<number | null, typeof rows>();
  for (const r of rows) byParent.set(r.parent_id, [...(byParent.get(r.parent_id) ?? []), r]);
  const build = (parent: number | null): RouteRecord[] =>
    (byParent.get(parent) ?? []).map((r) => {
      const children = build(r.id);
      return {
        path: r.path,
        name: r.name,
        ...(r.component ? { component: r.component } : {}),
        ...(r.redirect ? { redirect: r.redirect } : {}),
        meta: r.meta as unknown as RouteMeta,
        ...(children.length ? { children } : {}),
      };
    });
  return build(null);
}

/** The user's menu: the route records of the database, filtered by the guard rules of SPEC §6. */
export const menuRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  const schema = { tags: ['menu'], response: { 200: envelopeSchema(z.array(routeRecord)) } };
  const handler = async (req: Parameters<typeof caller>[0]) => {
    const u = caller(req);
    return ok(filterRoutes(await loadMenuTree(db), { admin: u.admin, roles: u.roles, permissions: u.permissions }));
  };
  app.get(
    '/admin/login/getMenu',
    { config: { access: 'signedIn' }, schema: { ...schema, summary: "The user's menu tree" } },
    handler,
  );
  app.get(
    '/user/system/user_menu_list',
    { config: { access: 'signedIn' }, schema: { ...schema, summary: "The user's menu tree (alternative path)" } },
    handler,
  );
  app.get(
    '/developer/developer/menuList',
    { config: { access: 'signedIn' }, schema: { ...schema, summary: "The user's menu tree (alternative path)" } },
    handler,
  );
};
