import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { messageItem, noticeItem, pageQuery, pagedEnvelope } from '@cpc/contracts';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';


export const noticeRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  app.get('/notice/getList', { schema: { tags: ['notice'], summary: 'Published notices, pinned first', querystring: pageQuery.strict(), response: { 200: pagedEnvelope(noticeItem) } } }, async (req) => {
    const { pageNo, pageSize } = req.query;
    const [rows, total] = await Promise.all([
      db.selectFrom('notices').selectAll().where('published_at', '<=', new Date()).orderBy('pinned', 'desc').orderBy('published_at', 'desc').limit(pageSize).offset((pageNo - 1) * pageSize).execute(),
      db.selectFrom('notices').select(sql<number>`count(*)`.as('n')).where('published_at', '<=', new Date()).executeTakeFirstOrThrow(),
    ]);
    return ok({
      list: rows.map((r) => ({ id: r.id, title: r.title, notice: r.body_html, image: r.image, email: '', pinned: r.pinned, publishedAt: r.published_at.toISOString() })),
      total: Number(total.n),
    });
  });

  app.get('/message/getList', { schema: { tags: ['notice'], summary: "The user's messages (the notice popover's e-mail tab)", querystring: pageQuery.strict(), response: { 200: pagedEnvelope(messageItem) } } }, async (req) => {
    const u = caller(req);
    const { pageNo, pageSize } = req.query;
    const mine = u.scope.selectFrom('messages').where('messages.user_id', '=', u.id);
    const [rows, total] = await Promise.all([
      mine.selectAll().orderBy('created_at', 'desc').limit(pageSize).offset((pageNo - 1) * pageSize).execute(),
      mine.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return ok({
      list: rows.map((r) => ({ id: r.id, kind: r.kind, title: r.title, body: r.body, readAt: r.read_at ? new Date(r.read_at).toISOString() : null, createdAt: r.created_at.toISOString() })),
      total: Number(total.n),
    });
  });
};
