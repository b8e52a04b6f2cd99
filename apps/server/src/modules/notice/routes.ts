import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { PERMISSIONS, envelopeSchema, pagedEnvelope } from '@cpc/contracts';
import { idBody } from '@cpc/contracts/device';
import {
  noticeBody,
  noticeEditBody,
  noticeIdQuery,
  noticeItem,
  noticeListQuery,
  noticeManageItem,
  noticeManageQuery,
  noticeReadResult,
  noticeTenant,
  noticeTenantQuery,
  noticeUnreadCount,
} from '@cpc/contracts/notice';
import type { Db } from '../../db/database.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { actorOf, caller, restrictToStaff } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import { NoticeService, type Reader } from './service.ts';
import type { NoticeEvents } from './upkeep.ts';

const readerOf = (req: FastifyRequest): Reader => {
  const u = caller(req);
  return { id: u.id, tenantId: u.tenantId, tenantKind: u.tenantKind };
};

type App = Parameters<FastifyPluginAsyncZod>[0];
/** Writes the system log and tells every console, after a change is stored. */
type Logged = (
  req: FastifyRequest,
  action: string,
  id: number,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
) => Promise<void>;

const signedIn = { access: 'signedIn' } as const;
const edit = { permission: PERMISSIONS.noticeEdit };

/** What every signed-in caller reads: the live notices of its audience, and its read marks. */
function readerRoutes(app: App, notices: NoticeService): void {
  app.get(
    '/notice/getList',
    {
      config: signedIn,
      schema: {
        tags: ['notice'],
        summary: 'Live announcements of the caller’s audience: pinned, then unread, then newest',
        querystring: noticeListQuery,
        response: { 200: pagedEnvelope(noticeItem) },
      },
    },
    async (req) => ok(await notices.list(readerOf(req), req.query)),
  );
  app.get(
    '/notice/detail',
    {
      config: signedIn,
      schema: {
        tags: ['notice'],
        summary: 'One live announcement of the caller’s audience, marked read for the caller',
        querystring: noticeIdQuery,
        response: { 200: envelopeSchema(noticeItem) },
      },
    },
    async (req) => ok(await notices.read(readerOf(req), req.query.id)),
  );
  app.get(
    '/notice/unreadCount',
    {
      config: signedIn,
      schema: {
        tags: ['notice'],
        summary: 'How many live announcements of the caller’s audience the caller has not read',
        response: { 200: envelopeSchema(noticeUnreadCount) },
      },
    },
    async (req) => ok({ count: await notices.unreadCount(readerOf(req)) }),
  );
  app.post(
    '/notice/readAll',
    {
      config: signedIn,
      schema: {
        tags: ['notice'],
        summary: 'Marks every live announcement of the caller’s audience read',
        body: z.object({}).strict(),
        response: { 200: envelopeSchema(noticeReadResult) },
      },
    },
    async (req) => ok({ updated: await notices.readAll(readerOf(req)) }),
  );
}

/** Staff read every notice in any state, and pick customer accounts as an audience. */
function staffReadRoutes(staff: App, notices: NoticeService): void {
  staff.get(
    '/notice/manage/list',
    {
      config: edit,
      schema: {
        tags: ['notice'],
        summary: 'Every announcement, any state (staff)',
        querystring: noticeManageQuery,
        response: { 200: pagedEnvelope(noticeManageItem) },
      },
    },
    async (req) => ok(await notices.manageList(req.query)),
  );
  staff.get(
    '/notice/manage/detail',
    {
      config: edit,
      schema: {
        tags: ['notice'],
        summary: 'One announcement, any state (staff)',
        querystring: noticeIdQuery,
        response: { 200: envelopeSchema(noticeManageItem) },
      },
    },
    async (req) => ok(await notices.manageDetail(req.query.id)),
  );
  staff.get(
    '/notice/tenantOptions',
    {
      config: edit,
      schema: {
        tags: ['notice'],
        summary: 'Customer accounts to choose as an audience (staff)',
        querystring: noticeTenantQuery,
        response: { 200: envelopeSchema(z.array(noticeTenant)) },
      },
    },
    async (req) =>
      ok(
        await notices.tenants({
          keyword: req.query.keyword || undefined,
          ids: req.query.ids ? req.query.ids.split(',').map(Number) : undefined,
        }),
      ),
  );
}

/** Staff write drafts and edit notices. */
function staffEditRoutes(staff: App, notices: NoticeService, logged: Logged): void {
  staff.post(
    '/notice/manage/create',
    {
      config: edit,
      schema: {
        tags: ['notice'],
        summary: 'Write a draft announcement (staff)',
        body: noticeBody,
        response: { 200: envelopeSchema(noticeManageItem) },
      },
    },
    async (req) => {
      const u = caller(req);
      const { row } = await notices.create({ id: u.id, scope: u.scope }, req.body);
      await logged(req, 'create', row.id, {}, NoticeService.logged(row));
      return ok(await notices.toManage(row));
    },
  );
  staff.post(
    '/notice/manage/update',
    {
      config: edit,
      schema: {
        tags: ['notice'],
        summary: 'Edit a draft or published announcement (staff)',
        body: noticeEditBody,
        response: { 200: envelopeSchema(noticeManageItem) },
      },
    },
    async (req) => {
      const u = caller(req);
      const { id, ...fields } = req.body;
      const { before, row } = await notices.update({ id: u.id, scope: u.scope }, id, fields);
      await logged(req, 'update', id, NoticeService.logged(before), NoticeService.logged(row));
      return ok(await notices.toManage(row));
    },
  );
}

/** Staff publish, withdraw and delete notices. */
function staffStateRoutes(staff: App, notices: NoticeService, logged: Logged): void {
  for (const action of ['publish', 'withdraw'] as const) {
    staff.post(
      `/notice/manage/${action}`,
      {
        config: edit,
        schema: {
          tags: ['notice'],
          summary:
            action === 'publish'
              ? 'Publish a draft now, or at its publish time (staff)'
              : 'Withdraw a published announcement (staff)',
          body: idBody,
          response: { 200: envelopeSchema(noticeManageItem) },
        },
      },
      async (req) => {
        const u = caller(req);
        const w = { id: u.id, scope: u.scope };
        const { before, row } =
          action === 'publish' ? await notices.publish(w, req.body.id) : await notices.withdraw(w, req.body.id);
        const pick = ({ state, publishAt }: Record<string, unknown>) => ({ state, publishAt });
        await logged(req, action, row.id, pick(NoticeService.logged(before)), pick(NoticeService.logged(row)));
        return ok(await notices.toManage(row));
      },
    );
  }
  staff.post(
    '/notice/manage/delete',
    {
      config: edit,
      schema: {
        tags: ['notice'],
        summary: 'Delete a draft or withdrawn announcement (staff)',
        body: idBody,
        response: { 200: envelopeSchema(z.null()) },
      },
    },
    async (req) => {
      const before = await notices.remove(req.body.id);
      await logged(req, 'delete', before.id, NoticeService.logged(before), {});
      return ok(null);
    },
  );
}

/**
 * System announcements: customers (and staff) read the live ones of their audience; staff with notice:edit
 * write, publish, withdraw and delete them (see the table of calls in contracts notice.ts).
 */
export const noticeRoutes: FastifyPluginAsyncZod<{
  db: Db;
  storage: Pick<ObjectStorage, 'signedUrl'>;
  events: NoticeEvents;
}> = async (app, { db, storage, events }) => {
  const notices = new NoticeService(db, storage);
  readerRoutes(app, notices);

  await app.register(async (scoped) => {
    const staff = scoped.withTypeProvider<ZodTypeProvider>();
    restrictToStaff(staff);
    const logged: Logged = async (req, action, id, before, after) => {
      await audit(db, {
        ...actorOf(req),
        action: `notice.${action}`,
        result: 'ok',
        resource: 'notice',
        resourceId: id,
        changes: changedFields(before, after),
      });
      events.publishAll({ type: 'notice', data: { id } });
    };
    staffReadRoutes(staff, notices);
    staffEditRoutes(staff, notices, logged);
    staffStateRoutes(staff, notices, logged);
  });
};
