import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  envelopeSchema,
  messageItem,
  messageReadBody,
  messageReadResult,
  pageQuery,
  pagedEnvelope,
  unreadCountResult,
} from '@cpc/contracts';
import { sql } from 'kysely';
import { caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import { requestLanguage } from '../../lib/i18n/localize.ts';
import { sayTitle } from './titles.ts';

/** The message centre (issue 14): every user's inbox. The calls keep the `/message/*` paths the console used. */
export const inboxRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/message/getList',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['notice'],
        summary: "The user's messages (the notice popover's e-mail tab)",
        querystring: pageQuery.strict(),
        response: { 200: pagedEnvelope(messageItem) },
      },
    },
    async (req) => {
      const u = caller(req);
      const { pageNo, pageSize } = req.query;
      const mine = u.scope.selectFrom('messages').where('messages.user_id', '=', u.id);
      const [rows, total] = await Promise.all([
        mine
          .selectAll()
          .orderBy('created_at', 'desc')
          .limit(pageSize)
          .offset((pageNo - 1) * pageSize)
          .execute(),
        mine.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
      ]);
      return ok({
        // a system message's title is stored as its en text, said in the reader's language by its key
        list: rows.map((r) => ({
          id: r.id,
          kind: r.kind,
          title: sayTitle(r.title, requestLanguage(req)),
          body: r.body,
          link: r.link,
          readAt: r.read_at ? new Date(r.read_at).toISOString() : null,
          createdAt: r.created_at.toISOString(),
        })),
        total: Number(total.n),
      });
    },
  );

  // Read state belongs to the caller alone: every query is pinned to their tenant and their own user id.
  app.get(
    '/message/unreadCount',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['notice'],
        summary: "How many of the user's messages are unread (the bell's badge)",
        response: { 200: envelopeSchema(unreadCountResult) },
      },
    },
    async (req) => {
      const u = caller(req);
      const row = await u.scope
        .selectFrom('messages')
        .select(sql<number>`count(*)`.as('n'))
        .where('messages.user_id', '=', u.id)
        .where('messages.read_at', 'is', null)
        .executeTakeFirstOrThrow();
      return ok({ count: Number(row.n) });
    },
  );

  app.post(
    '/message/read',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['notice'],
        summary: "Mark some of the user's messages read; ids of others' messages are ignored",
        body: messageReadBody,
        response: { 200: envelopeSchema(messageReadResult) },
      },
    },
    async (req) => {
      const u = caller(req);
      const res = await u.scope
        .updateTable('messages')
        .set({ read_at: new Date() })
        .where('messages.user_id', '=', u.id)
        .where('messages.id', 'in', req.body.ids)
        .where('messages.read_at', 'is', null)
        .executeTakeFirst();
      return ok({ updated: Number(res.numUpdatedRows) });
    },
  );

  app.post(
    '/message/readAll',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['notice'],
        summary: "Mark all of the user's messages read",
        response: { 200: envelopeSchema(messageReadResult) },
      },
    },
    async (req) => {
      const u = caller(req);
      const res = await u.scope
        .updateTable('messages')
        .set({ read_at: new Date() })
        .where('messages.user_id', '=', u.id)
        .where('messages.read_at', 'is', null)
        .executeTakeFirst();
      return ok({ updated: Number(res.numUpdatedRows) });
    },
  );
};
