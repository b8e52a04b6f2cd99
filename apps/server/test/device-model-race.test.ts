import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, createHarness, type Harness } from './harness.ts';
import { waitUntil } from './wait.ts';

let h: Harness;
let staff: string;
beforeAll(async () => {
  h = await createHarness();
  staff = (await h.login('admin', ADMIN_PASSWORD)).token;
});
afterAll(() => h.close());

const post = (url: string, token: string, payload: unknown) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload: payload as Record<string, unknown> });

describe('deleting a device model', () => {
  it('answers 400 "in use", not 500, when a device is registered with the model during the delete', async () => {
    const code = `RACE${randomUUID().slice(0, 6)}`;
    const added = await post('/system/deviceModel/add', staff, { code, name: 'race', kind: 'printer' });
    expect(added.statusCode, added.body).toBe(200);
    const id = added.body_.data.id as number;

    let deleting: ReturnType<typeof post> | undefined;
    // a registration not yet committed: the delete's count does not see its device, and its DELETE waits for
    // the registration's lock on the model row, then meets the committed device through the foreign key
    await h.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('devices')
        .values({ sn: `RACE-${randomUUID().slice(0, 8)}`, model_id: id, bind_key_hash: 'x', secret: 'x' })
        .execute();
      deleting = post('/system/deviceModel/delete', staff, { id });
      await waitUntil('the delete waiting for the registration', async () => {
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from pg_stat_activity
          where wait_event_type = 'Lock' and query ilike 'delete from "device_models"%'`.execute(h.db);
        return rows[0].n > 0;
      });
    });
    const res = await deleting!;
    expect(res.statusCode, res.body).toBe(400);
    expect(res.body_.code).toBe(400);
    expect(res.body_.msg).toMatch(/used by 1 registered devices/);
    expect(await h.db.selectFrom('device_models').select('id').where('id', '=', id).executeTakeFirst()).toBeDefined();
  });
});
