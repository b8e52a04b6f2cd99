import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  envelopeSchema,
  messageItem,
  messageReadBody,
  messageReadResult,
  noticeItem,
  pageQuery,
  pagedEnvelope,
  unreadCountResult,
} from '@cpc/contracts';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import { MESSAGES, renderMessage, type PlainKey } from '@cpc/contracts/messages';
import { requestLanguage } from '../../lib/i18n/localize.ts';

/** The titles of system messages, stored as their en text (programs read it): said in the reader's language by key. */
const STORED_TITLES = new Map<string, PlainKey>(
  (
    [
      'identity.approvedTitle',
      'identity.failedTitle',
      'flowRate.lowTitle',
      'flowRate.exhaustedTitle',
      'flowRate.expiringTitle',
      'flowRate.expiredTitle',
    ] as const
  ).map((k) => [MESSAGES[k].en, k]),
);
const sayTitle = (title: string, lang: 'zh' | 'en') => {
  const key = STORED_TITLES.get(title);
  return key ? renderMessage(lang, key) : title;
};

export const noticeRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/notice/getList',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['notice'],
        summary: 'Published notices, pinned first',
        querystring: pageQuery.strict(),
        response: { 200: pagedEnvelope(noticeItem) },
      },
    },
    async (req) => {
      const { pageNo, pageSize } = req.query;
      const [rows, total] = await Promise.all([
        db
          .selectFrom('notices')
          .selectAll()
          .where('published_at', '<=', new Date())
          .orderBy('pinned', 'desc')
          .orderBy('published_at', 'desc')
          .limit(pageSize)
          .offset((pageNo - 1) * pageSize)
          .execute(),
        db
          .selectFrom('notices')
          .select(sql<number>`count(*)`.as('n'))
          .where('published_at', '<=', new Date())
          .executeTakeFirstOrThrow(),
      ]);
      return ok({
        list: rows.map((r) => ({
          id: r.id,
          title: r.title,
          notice: r.body_html,
          image: r.image,
          email: '',
          pinned: r.pinned,
          publishedAt: r.published_at.toISOString(),
        })),
        total: Number(total.n),
      });
    },
  );

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
