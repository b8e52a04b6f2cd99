import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  PERMISSIONS,
  envelopeSchema,
  menuCreateBody,
  menuDeleteBody,
  menuMoveBody,
  menuNode,
  menuRollbackBody,
  menuUpdateBody,
  menuVersionDetail,
  menuVersionIdQuery,
  menuVersionView,
  routeRecord,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import { actorOf, caller, restrictToStaff } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';
import type { MenuService, MenuChange } from './service.ts';

/** The live numbers badges and dots may show (`meta.badge: { source }`), counted for one user. */
export const liveCounts = z.object({ unreadMessages: z.number().int() });
export type LiveCounts = z.infer<typeof liveCounts>;

const changeResult = z.object({ id: z.number().int(), version: z.number().int() });

type App = Parameters<FastifyPluginAsyncZod>[0];
/** Logs a change and tells the consoles, answering the change's record and version. */
type Done = (
  req: FastifyRequest,
  action: string,
  c: MenuChange,
) => Promise<ReturnType<typeof ok<{ id: number; version: number }>>>;

const schema = { tags: ['menu'], response: { 200: envelopeSchema(z.array(routeRecord)) } };
const edit = { permission: PERMISSIONS.menuEdit };
const tags = ['menu'];

/** What every signed-in user reads: their menu (at three paths) and the live numbers of its badges. */
function readerRoutes(app: App, menus: MenuService): void {
  /** The user's menu: the route records of the database, filtered by their guard rules. */
  const handler = async (req: Parameters<typeof caller>[0]) => {
    const u = caller(req);
    return ok(await menus.menuFor({ admin: u.admin, roles: u.roles, permissions: u.permissions }));
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

  app.get(
    '/menu/liveCounts',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['menu'],
        summary: 'The live numbers menu badges and dots show (unread messages)',
        response: { 200: envelopeSchema(liveCounts) },
      },
    },
    async (req) => {
      const u = caller(req);
      return ok(await menus.liveCounts(u.tenantId, u.id));
    },
  );
}

/** Staff edit the records: the tree with ids, and each kind of change. */
function staffEditRoutes(staff: App, menus: MenuService, done: Done): void {
  staff.get(
    '/system/menu/tree',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Every route record with its id, hidden ones too (staff)',
        response: { 200: envelopeSchema(z.array(menuNode)) },
      },
    },
    async () => ok(await menus.tree()),
  );
  staff.post(
    '/system/menu/add',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Add a route record at the end of its parent (staff)',
        body: menuCreateBody,
        response: { 200: envelopeSchema(changeResult) },
      },
    },
    async (req) => done(req, 'create', await menus.create(caller(req).id, req.body)),
  );
  staff.post(
    '/system/menu/edit',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Change a route record (staff)',
        body: menuUpdateBody,
        response: { 200: envelopeSchema(changeResult) },
      },
    },
    async (req) => done(req, 'update', await menus.update(caller(req).id, req.body)),
  );
  staff.post(
    '/system/menu/delete',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Delete a route record with everything below it (staff)',
        body: menuDeleteBody,
        response: { 200: envelopeSchema(changeResult) },
      },
    },
    async (req) => done(req, 'delete', await menus.delete(caller(req).id, req.body.id)),
  );
  staff.post(
    '/system/menu/move',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Move a route record under a parent, at a place among its siblings (staff)',
        body: menuMoveBody,
        response: { 200: envelopeSchema(changeResult) },
      },
    },
    async (req) => done(req, 'move', await menus.move(caller(req).id, req.body)),
  );
}

/** Staff read the stored versions and put one back. */
function staffVersionRoutes(staff: App, menus: MenuService, done: Done): void {
  staff.get(
    '/system/menu/versions',
    {
      config: edit,
      schema: {
        tags,
        summary: 'The stored versions of the menu, newest first (staff)',
        response: { 200: envelopeSchema(z.array(menuVersionView)) },
      },
    },
    async () => ok(await menus.versions()),
  );
  staff.get(
    '/system/menu/version',
    {
      config: edit,
      schema: {
        tags,
        summary: "One version's tree (staff)",
        querystring: menuVersionIdQuery,
        response: { 200: envelopeSchema(menuVersionDetail) },
      },
    },
    async (req) => ok(await menus.version(req.query.id)),
  );
  staff.post(
    '/system/menu/rollback',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Put a version back; the rollback is a new version (staff)',
        body: menuRollbackBody,
        response: { 200: envelopeSchema(changeResult) },
      },
    },
    async (req) => done(req, 'rollback', await menus.rollback(caller(req).id, req.body.id)),
  );
}

export const menuRoutes: FastifyPluginAsyncZod<{ db: Db; menus: MenuService; events?: LiveEvents }> = async (
  app,
  { db, menus, events },
) => {
  readerRoutes(app, menus);
  /** Logs a change, tells every console its menu changed, answers with the record and the new version. */
  const done: Done = async (req, action, c) => {
    await audit(db, {
      ...actorOf(req),
      action: `menu.${action}`,
      resource: 'menu',
      resourceId: c.id,
      result: 'ok',
      changes: changedFields(c.before, c.after),
      details: { version: c.version },
    });
    events?.publishAll({ type: 'menu', data: { version: c.version } });
    return ok({ id: c.id, version: c.version });
  };

  await app.register(async (scoped) => {
    const staff = scoped.withTypeProvider<ZodTypeProvider>();
    restrictToStaff(staff);
    staffEditRoutes(staff, menus, done);
    staffVersionRoutes(staff, menus, done);
  });
};
