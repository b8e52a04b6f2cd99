import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { NO_FLUSH_WAIT } from '../src/db/database.ts';
import { createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, taskRow, type Customer } from './device-helpers.ts';

/**
 * The command round trip's commits (issue 17): the task row and its `sent` mark are one commit, and the device's
 * acknowledgement and progress are committed without waiting for the disk (the result still waits).
 */
let h: Harness;
let A: Customer;
let deviceId: number;
const specs = makeSpecs(1, { seed: 77, prefix: 'TCM' });

beforeAll(async () => {
  h = await createHarness();
  A = await customer(h);
  deviceId = (await devicesOf(h, A.tenantId, specs)).get(specs[0].sn)!;
});
afterAll(() => h.close());

describe('command round trip commits', () => {
  it('stores a command for an online device already sent, in the commit of its row', async () => {
    await h.db
      .updateTable('devices')
      .set({ status: 'online', connected_at: new Date() })
      .where('id', '=', deviceId)
      .execute();
    const res = await h.call({
      method: 'POST',
      url: '/apiAdmin/device/command',
      token: A.token,
      payload: { deviceIds: [deviceId], type: 'reboot' },
    });
    expect(res.statusCode).toBe(200);
    const row = await taskRow(h, res.body_.data.taskIds[0]);
    expect(row).toMatchObject({ state: 'sent', attempts: 1 });
    // now() is the transaction's start: one transaction wrote both
    expect(row.sent_at?.getTime()).toBe(row.created_at.getTime());
  });

  it('leaves a command for an offline device queued for its hello', async () => {
    await h.db
      .updateTable('devices')
      .set({ status: 'offline', connected_at: null })
      .where('id', '=', deviceId)
      .execute();
    const res = await h.call({
      method: 'POST',
      url: '/apiAdmin/device/command',
      token: A.token,
      payload: { deviceIds: [deviceId], type: 'reboot' },
    });
    expect(await taskRow(h, res.body_.data.taskIds[0])).toMatchObject({ state: 'queued', attempts: 0, sent_at: null });
  });

  it("turns the flush wait off for the acknowledging statement only (and a live event's NOTIFY)", async () => {
    await h.db.connection().execute(async (db) => {
      const { rows } = await sql<{ s: string }>`
        SELECT current_setting('synchronous_commit') AS s FROM ${NO_FLUSH_WAIT}`.execute(db);
      expect(rows[0].s).toBe('off');
      const after = await sql<{ s: string }>`SELECT current_setting('synchronous_commit') AS s`.execute(db);
      expect(after.rows[0].s).toBe('on');
    });
  });
});
