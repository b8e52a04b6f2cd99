import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { noticeItem, pageQuery, pagedEnvelope } from '@cpc/contracts';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { ok } from '../../plugins/errors.ts';

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
};
