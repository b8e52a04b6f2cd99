import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { Presence } from '../src/plugins/mqtt/presence.ts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { NO_FLUSH_WAIT } from '../src/db/database.ts';
import { createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, taskRow, type Customer } from './device-helpers.ts';

/**
 * The command round trip's commits (issue 17): the task row and its `sent` mark are one commit, and the device's
 * acknowledgement and progress are committed without waiting for the disk (the result still waits). A device's
 * hello (every reboot ends in one) says in its own statement what the gateway does next.
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

describe("a hello's own answer", () => {
  const presence = () => new Presence(h.db, { publish: () => {} }, { heartbeatS: 30, telemetrySampleS: 60 });
  const iccid = '89860000000000077001';
  const hello = (conn: string, extra: object = {}) => presence().hello(deviceId, { conn, fw: '1.0', ...extra });
  const clearWork = async () => {
    await h.db.updateTable('device_tasks').set({ state: 'canceled' }).where('device_id', '=', deviceId).execute();
    await h.db.deleteFrom('print_jobs').where('device_id', '=', deviceId).execute();
  };

  it('says whether tasks or print jobs wait for the device, so a reconnect with nothing waiting reads nothing more', async () => {
    await clearWork();
    expect(await hello('h1')).toMatchObject({ status: 'online', tasks_open: false, prints_open: false });

    // a task the device has not taken, and one it took but never reported: both go again
    for (const state of ['queued', 'running'] as const) {
      await clearWork();
      await h.db
        .insertInto('device_tasks')
        .values({
          tenant_id: A.tenantId,
          device_id: deviceId,
          type: 'reboot',
          state,
          created_by: null,
          expire_at: new Date(Date.now() + 60_000),
        })
        .execute();
      expect(await hello(`h-${state}`)).toMatchObject({ tasks_open: true, prints_open: false });
    }

    await clearWork();
    await h.db
      .insertInto('print_jobs')
      .values({
        tenant_id: A.tenantId,
        device_id: deviceId,
        origin_id: randomUUID(),
        format: 'escpos',
        columns: 48,
        content: 'x',
        preview: 'x',
        payload: Buffer.from('x'),
        expire_at: new Date(Date.now() + 60_000),
        state: 'queued',
      })
      .execute();
    expect(await hello('h-print')).toMatchObject({ tasks_open: false, prints_open: true });
    await clearWork();
  });

  it('carries the plan of the SIM it names, when the platform knows it', async () => {
    expect(await hello('s1', { iccid })).toMatchObject({ sim_known: false, sim_plan_mb: null });
    const expires = new Date('2027-01-31T16:00:00Z');
    await h.db
      .insertInto('sims')
      .values({ iccid, tenant_id: A.tenantId, plan_total_mb: 1024, expires_at: expires })
      .onConflict((oc) => oc.column('iccid').doUpdateSet({ plan_total_mb: 1024, expires_at: expires }))
      .execute();
    const row = await hello('s2', { iccid });
    expect(row).toMatchObject({ sim_known: true });
    expect(Number(row!.sim_plan_mb)).toBe(1024);
    expect(new Date(row!.sim_expires_at!).toISOString()).toBe(expires.toISOString());
    expect(await deviceRowById(deviceId)).toMatchObject({ conn_id: 's2', status: 'online', iccid });
  });
});

const deviceRowById = (id: number) =>
  h.db.selectFrom('devices').select(['conn_id', 'status', 'iccid']).where('id', '=', id).executeTakeFirstOrThrow();
