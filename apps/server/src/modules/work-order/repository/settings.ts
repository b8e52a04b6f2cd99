import type { Db } from '../../../db/database.ts';
import { defineQueries } from '../../../db/query-spec.ts';
import type { Priority } from './types.ts';

/** The work-order settings: the first-response and resolution targets per priority, and the canned replies. */
export class WorkOrderSettingsRepository {
  constructor(private readonly db: Db) {}

  targets() {
    return this.db.selectFrom('work_order_targets').selectAll().execute();
  }

  /** Sets the targets of each priority given, in one transaction. */
  async updateTargets(
    targets: Array<{ priority: Priority; responseMinutes: number; resolveMinutes: number }>,
    userId: number,
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const t of targets) {
        await trx
          .updateTable('work_order_targets')
          .set({
            response_minutes: t.responseMinutes,
            resolve_minutes: t.resolveMinutes,
            updated_at: new Date(),
            updated_by: userId,
          })
          .where('priority', '=', t.priority)
          .execute();
      }
    });
  }

  /** The shared canned replies and `userId`'s own, shared first. */
  cannedFor(userId: number) {
    return this.db
      .selectFrom('work_order_canned_replies')
      .selectAll()
      .where((eb) => eb.or([eb('owner_id', 'is', null), eb('owner_id', '=', userId)]))
      .orderBy('owner_id', (ob) => ob.asc().nullsFirst())
      .orderBy('title')
      .orderBy('id')
      .execute();
  }

  /** One canned reply `userId` reaches (shared or its own). */
  findCanned(id: number, userId: number) {
    return this.db
      .selectFrom('work_order_canned_replies')
      .selectAll()
      .where('id', '=', id)
      .where((eb) => eb.or([eb('owner_id', 'is', null), eb('owner_id', '=', userId)]))
      .executeTakeFirst();
  }

  insertCanned(values: { owner_id: number | null; title: string; body_html: string }) {
    return this.db.insertInto('work_order_canned_replies').values(values).returningAll().executeTakeFirstOrThrow();
  }

  updateCanned(id: number, set: { title?: string; body_html?: string }) {
    return this.db
      .updateTable('work_order_canned_replies')
      .set({ ...set, updated_at: new Date() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async deleteCanned(id: number): Promise<void> {
    await this.db.deleteFrom('work_order_canned_replies').where('id', '=', id).execute();
  }
}

const CANNED = { id: 9, owner_id: 2, title: 'Restart', body_html: '<p>Please restart the printer.</p>' };

export const settingQueries = defineQueries(WorkOrderSettingsRepository, {
  targets: [[]],
  updateTargets: [
    [
      [
        { priority: 'urgent', responseMinutes: 30, resolveMinutes: 240 },
        { priority: 'low', responseMinutes: 480, resolveMinutes: 4320 },
      ],
      2,
    ],
  ],
  cannedFor: [[2]],
  findCanned: [[9, 2]],
  insertCanned: [{ args: [{ owner_id: 2, title: CANNED.title, body_html: CANNED.body_html }], results: [[CANNED]] }],
  updateCanned: [
    { args: [9, { title: 'Restart first' }], results: [[CANNED]] },
    { args: [9, { title: 'Restart first', body_html: '<p>Turn it off and on.</p>' }], results: [[CANNED]] },
  ],
  deleteCanned: [[9]],
});
