import { sql } from 'kysely';
import { WORKBENCH_NOTICE_DAYS } from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { AuthUser } from '../../plugins/auth.ts';

/**
 * The workbench's "unread announcements" figure, in ONE place: today the announcements published in the last
 * WORKBENCH_NOTICE_DAYS days (the `notices` table has no per-user reads yet). When announcements get audiences
 * and per-user reads (the notice rework), this becomes the per-user unread count; nothing else changes.
 */
export async function unreadNoticeCount(db: Db, _user: AuthUser): Promise<number> {
  const row = await recent(db)
    .select(sql<number>`count(*)::int`.as('n'))
    .executeTakeFirstOrThrow();
  return row.n;
}

/** The latest of the announcements `unreadNoticeCount` counts, newest first (pinned ones first). */
export function latestNotices(db: Db, limit: number) {
  return recent(db)
    .select(['notices.id', 'notices.title', 'notices.published_at'])
    .orderBy('notices.pinned', 'desc')
    .orderBy('notices.published_at', 'desc')
    .orderBy('notices.id', 'desc')
    .limit(limit)
    .execute();
}

const recent = (db: Db) =>
  db
    .selectFrom('notices')
    .where('notices.published_at', '<=', sql<Date>`now()`)
    .where('notices.published_at', '>', sql<Date>`now() - make_interval(days => ${WORKBENCH_NOTICE_DAYS})`);
