import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import {
  envelopeSchema,
  messageDeleteBody,
  messageDeleteResult,
  messageDetailQuery,
  messageItem,
  messageListQuery,
  messageReadAllBody,
  messageReadBody,
  messageReadResult,
  pagedEnvelope,
  unreadCountResult,
  type MessageFilter,
  type MessageItem,
} from '@cpc/contracts';
import { sql, type Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';
import { actorOf, caller } from '../../plugins/auth.ts';
import { notFound, ok } from '../../plugins/errors.ts';
import { requestLanguage } from '../../lib/i18n/localize.ts';
import { audit } from '../../lib/audit.ts';
import { sayTitle, storedTitlesSaying } from './titles.ts';

const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');

type MessageRow = Selectable<Database['messages']>;
/** A message as its reader reads it: a system message's title (stored as its en text) in the reader's language. */
const view = (r: MessageRow, lang: 'zh' | 'en'): MessageItem => ({
  id: r.id,
  kind: r.kind,
  title: sayTitle(r.title, lang),
  body: r.body,
  link: r.link,
  readAt: r.read_at ? new Date(r.read_at).toISOString() : null,
  createdAt: new Date(r.created_at).toISOString(),
});

export interface InboxRouteOptions {
  db: Db;
  /** The user's other consoles hear of every change (`message` event); absent in tests of the routes alone. */
  events?: Pick<LiveEvents, 'publish'>;
}

/**
 * The message centre (issue 14): every user's inbox. The calls keep the `/message/*` paths the console used.
 * Every query is pinned to the caller's tenant (TenantScope) and their own user id: another user's message does
 * not exist for them (404 on detail, ignored by read and delete).
 */
export const inboxRoutes: FastifyPluginAsyncZod<InboxRouteOptions> = async (app, { db, events }) => {
  const changed = (req: FastifyRequest) => {
    const u = caller(req);
    events?.publish(u.tenantId, { type: 'message', data: { userId: u.id } });
  };

  /** The caller's messages that pass the filter. */
  const mine = (req: FastifyRequest, f: MessageFilter) => {
    const u = caller(req);
    let q = u.scope.selectFrom('messages').where('messages.user_id', '=', u.id);
    if (f.group) q = q.where('messages.kind', 'like', `${escapeLike(f.group)}.%`);
    if (f.read === 'read') q = q.where('messages.read_at', 'is not', null);
    if (f.read === 'unread') q = q.where('messages.read_at', 'is', null);
    if (f.from) q = q.where('messages.created_at', '>=', new Date(f.from));
    if (f.to) q = q.where('messages.created_at', '<', new Date(f.to));
    if (f.keyword) {
      const like = `%${escapeLike(f.keyword)}%`;
      const titles = storedTitlesSaying(f.keyword);
      q = q.where((eb) =>
        eb.or([
          eb('messages.title', 'ilike', like),
          eb('messages.body', 'ilike', like),
          ...(titles.length ? [eb('messages.title', 'in', titles)] : []),
        ]),
      );
    }
    return q;
  };

  app.get(
    '/message/getList',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['notice'],
        summary: "The user's messages, newest first: filtered by group, read state, time and keyword",
        querystring: messageListQuery,
        response: { 200: pagedEnvelope(messageItem) },
      },
    },
    async (req) => {
      const { pageNo, pageSize, ...filter } = req.query;
      const q = mine(req, filter);
      const [rows, total] = await Promise.all([
        q
          .selectAll()
          .orderBy('messages.created_at', 'desc')
          .orderBy('messages.id', 'desc')
          .limit(pageSize)
          .offset((pageNo - 1) * pageSize)
          .execute(),
        q.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
      ]);
      const lang = requestLanguage(req);
      return ok({ list: rows.map((r) => view(r, lang)), total: Number(total.n) });
    },
  );

  app.get(
    '/message/detail',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['notice'],
        summary: "One of the user's messages; reading it marks it read (404 for anyone else's)",
        querystring: messageDetailQuery,
        response: { 200: envelopeSchema(messageItem) },
      },
    },
    async (req) => {
      const u = caller(req);
      const row = await u.scope
        .selectFrom('messages')
        .selectAll()
        .where('messages.user_id', '=', u.id)
        .where('messages.id', '=', req.query.id)
        .executeTakeFirst();
      if (!row) throw notFound('message');
      if (!row.read_at) {
        const read = await u.scope
          .updateTable('messages')
          .set({ read_at: new Date() })
          .where('messages.user_id', '=', u.id)
          .where('messages.id', '=', row.id)
          .where('messages.read_at', 'is', null)
          .returning('read_at')
          .executeTakeFirst();
        if (read) {
          row.read_at = read.read_at;
          changed(req);
        }
      }
      return ok(view(row, requestLanguage(req)));
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
      const row = await mine(req, { read: 'unread' })
        .select(sql<number>`count(*)`.as('n'))
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
      const updated = Number(res.numUpdatedRows);
      if (updated) changed(req);
      return ok({ updated });
    },
  );

  app.post(
    '/message/readAll',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['notice'],
        summary: "Mark all of the user's messages read (or those of one group)",
        body: messageReadAllBody,
        response: { 200: envelopeSchema(messageReadResult) },
      },
    },
    async (req) => {
      const u = caller(req);
      const group = req.body?.group;
      let q = u.scope
        .updateTable('messages')
        .set({ read_at: new Date() })
        .where('messages.user_id', '=', u.id)
        .where('messages.read_at', 'is', null);
      if (group) q = q.where('messages.kind', 'like', `${escapeLike(group)}.%`);
      const res = await q.executeTakeFirst();
      const updated = Number(res.numUpdatedRows);
      if (updated) {
        await audit(db, {
          ...actorOf(req),
          action: 'message.readAll',
          resource: 'message',
          result: 'ok',
          details: { group: group ?? 'all', updated },
          changes: { read: { before: `${updated} unread`, after: 'read' } },
        });
        changed(req);
      }
      return ok({ updated });
    },
  );

  app.post(
    '/message/delete',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['notice'],
        summary: "Delete some of the user's messages; ids of others' messages are ignored (`deleted` counts)",
        body: messageDeleteBody,
        response: { 200: envelopeSchema(messageDeleteResult) },
      },
    },
    async (req) => {
      const u = caller(req);
      const gone = await u.scope
        .deleteFrom('messages')
        .where('messages.user_id', '=', u.id)
        .where('messages.id', 'in', req.body.ids)
        .returning(['messages.id', 'messages.kind', 'messages.title'])
        .execute();
      if (gone.length) {
        await audit(db, {
          ...actorOf(req),
          action: 'message.delete',
          resource: 'message',
          resourceId: gone.map((g) => g.id).join(','),
          result: 'ok',
          changes: {
            messages: { before: gone.map((g) => `${g.id} ${g.kind}: ${g.title}`), after: null },
          },
        });
        changed(req);
      }
      return ok({ deleted: gone.length });
    },
  );
};
