import type { Priority } from './types.ts';
import { WorkOrderCrossings } from './crossings.ts';

/** The work-order settings: the first-response and resolution targets per priority, and the canned replies. */
export class WorkOrderSettingStatements extends WorkOrderCrossings {
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
