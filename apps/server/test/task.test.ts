import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { TASK_STATES, type TaskState } from '@cpc/contracts';
import { TaskService } from '../src/modules/task/service.ts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { ADMIN_PASSWORD, createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, openEvents, subAccountWith, taskRow, type Customer } from './device-helpers.ts';

/** The task API (DESIGN §6): validation, permissions, tenants, batches, cancel, and the guarded state machine. */
let h: Harness;
let A: Customer;
let B: Customer;
let ids: Map<string, number>;
const specs = makeSpecs(8, { seed: 31, prefix: 'TSK' });
const idOf = (i: number) => ids.get(specs[i].sn)!;

beforeAll(async () => {
  h = await createHarness();
  [A, B] = [await customer(h), await customer(h)];
  ids = new Map([
    ...(await devicesOf(h, A.tenantId, specs.slice(0, 6))),
    ...(await devicesOf(h, B.tenantId, specs.slice(6))),
  ]);
});
afterAll(() => h.close());

const post = (url: string, token: string | undefined, payload?: Record<string, unknown>) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, ...(payload ? { payload } : {}) });
const get = (url: string, token: string | undefined) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });

/** A sub-account of tenant A holding exactly these permissions. */
const subAccount = (permissions: string[]) => subAccountWith(h, A.tenantId, permissions);

describe('bad input answers 400 naming the field', () => {
  const cases: Array<[string, () => ReturnType<typeof post>, string]> = [
    ['no body fields', () => post('/device/command', A.token, {}), 'deviceIds'],
    ['no device', () => post('/device/command', A.token, { deviceIds: [], type: 'reboot' }), 'deviceIds'],
    [
      '501 devices',
      () =>
        post('/device/command', A.token, { deviceIds: Array.from({ length: 501 }, (_, i) => i + 1), type: 'reboot' }),
      'deviceIds',
    ],
    [
      'a repeated device',
      () => post('/device/command', A.token, { deviceIds: [idOf(0), idOf(0)], type: 'reboot' }),
      'deviceIds',
    ],
    [
      'a device id that is not a number',
      () => post('/device/command', A.token, { deviceIds: ['x'], type: 'reboot' }),
      'deviceIds.0',
    ],
    ['an unknown command', () => post('/device/command', A.token, { deviceIds: [idOf(0)], type: 'explode' }), 'type'],
    [
      'an expiry of 0 s',
      () => post('/device/command', A.token, { deviceIds: [idOf(0)], type: 'reboot', expireInSec: 0 }),
      'expireInSec',
    ],
    [
      'an expiry over 7 days',
      () => post('/device/command', A.token, { deviceIds: [idOf(0)], type: 'reboot', expireInSec: 8 * 86400 }),
      'expireInSec',
    ],
    [
      'an unknown field',
      () => post('/device/command', A.token, { deviceIds: [idOf(0)], type: 'reboot', force: true }),
      'force',
    ],
    ['a page size over 100', () => get('/device/task/list?pageSize=1000', A.token), 'pageSize'],
    ['an unknown state', () => get('/device/task/list?state=bogus', A.token), 'state'],
    ['a device id that is not a number (list)', () => get('/device/task/list?deviceId=abc', A.token), 'deviceId'],
    ['a batch id that is not a number', () => get('/device/task/batch/abc', A.token), 'id'],
    ['a batch page size over 100', () => get('/device/task/batch/list?pageSize=101', A.token), 'pageSize'],
    ['an unknown batch list filter', () => get('/device/task/batch/list?tenantId=1', A.token), 'tenantId'],
    ['a task id that is not a uuid', () => post('/device/task/not-a-uuid/cancel', A.token), 'id'],
    ['an event stream without a ticket', () => get('/device/events', undefined), 'ticket'],
  ];
  it.each(cases)('%s', async (_name, call, field) => {
    const res = await call();
    expect(res.statusCode).toBe(400);
    expect(res.body_.code).toBe(400);
    // an unknown key is named in the message (the field of such an issue is the body itself)
    const fields: string[] = res.body_.data.fields.map((f: { field: string }) => f.field);
    expect(fields.includes(field) || res.body_.msg.includes(`"${field}"`), `${res.body_.msg}`).toBe(true);
  });
});

describe('permissions', () => {
  it('asks for a token', async () => {
    for (const res of [
      await post('/device/command', undefined, { deviceIds: [idOf(0)], type: 'reboot' }),
      await get('/device/task/list', undefined),
      await post('/device/events/ticket', undefined),
    ]) {
      expect(res.statusCode).toBe(401);
    }
  });

  it('gives the main account every device command; a sub-account only what its roles hold', async () => {
    const none = await subAccount([]);
    const rebootOnly = await subAccount(['device:reboot']);
    const viewer = await subAccount(['device:view']);
    const table: Array<[string, string, () => Promise<{ statusCode: number }>, number]> = [
      ['main', 'reboot', () => post('/device/command', A.token, { deviceIds: [idOf(0)], type: 'reboot' }), 200],
      ['main', 'shutdown', () => post('/device/command', A.token, { deviceIds: [idOf(0)], type: 'shutdown' }), 200],
      ['main', 'task list', () => get('/device/task/list', A.token), 200],
      ['no roles', 'reboot', () => post('/device/command', none, { deviceIds: [idOf(0)], type: 'reboot' }), 403],
      ['no roles', 'task list', () => get('/device/task/list', none), 403],
      // the stream is every signed-in user's; what it carries follows the permissions (live-events.test.ts)
      ['no roles', 'event ticket', () => post('/device/events/ticket', none), 200],
      [
        'reboot only',
        'reboot',
        () => post('/device/command', rebootOnly, { deviceIds: [idOf(0)], type: 'reboot' }),
        200,
      ],
      [
        'reboot only',
        'shutdown',
        () => post('/device/command', rebootOnly, { deviceIds: [idOf(0)], type: 'shutdown' }),
        403,
      ],
      ['viewer', 'event ticket', () => post('/device/events/ticket', viewer), 200],
      ['viewer', 'cancel', () => post(`/device/task/${randomUUID()}/cancel`, viewer), 403],
      ['viewer', 'batch list', () => get('/device/task/batch/list', viewer), 403],
      ['no roles', 'batch list', () => get('/device/task/batch/list', none), 403],
      ['main', 'batch list', () => get('/device/task/batch/list', A.token), 200],
    ];
    for (const [who, what, call, status] of table) expect((await call()).statusCode, `${who}: ${what}`).toBe(status);
  });

  it('refuses an event ticket that is forged, or whose session has ended', async () => {
    expect((await get('/device/events?ticket=forged', undefined)).statusCode).toBe(401);
    const c = await customer(h);
    const ticket = (await post('/device/events/ticket', c.token)).body_.data.ticket as string;
    await get('/logout', c.token);
    const res = await get(`/device/events?ticket=${encodeURIComponent(ticket)}`, undefined);
    expect(res.statusCode).toBe(401);
    expect(res.body_.code).toBe(401);
  });
});

describe('commands and tasks', () => {
  it('makes one task per device and a batch with counts by state', async () => {
    const deviceIds = [idOf(1), idOf(2), idOf(3)];
    const res = await post('/device/command', A.token, { deviceIds, type: 'shutdown', expireInSec: 600 });
    expect(res.statusCode).toBe(200);
    const { batchId, taskIds } = res.body_.data;
    expect(taskIds).toHaveLength(3);
    const rows = await Promise.all(taskIds.map((id: string) => taskRow(h, id)));
    expect(rows.map((r) => r.device_id)).toEqual(deviceIds);
    expect(rows.every((r) => r.state === 'queued' && r.batch_id === batchId && r.type === 'shutdown')).toBe(true);
    expect(+rows[0].expire_at - Date.now()).toBeGreaterThan(500_000);

    await post(`/device/task/${taskIds[0]}/cancel`, A.token);
    const batch = await get(`/device/task/batch/${batchId}`, A.token);
    expect(batch.body_.data).toMatchObject({
      id: batchId,
      type: 'shutdown',
      total: 3,
      counts: { queued: 2, canceled: 1, succeeded: 0, failed: 0 },
    });

    const list = await get(`/device/task/list?batchId=${batchId}&state=queued&pageSize=1`, A.token);
    expect(list.body_.data.total).toBe(2);
    expect(list.body_.data.list).toHaveLength(1);
    expect(list.body_.data.list[0]).toMatchObject({
      batchId,
      state: 'queued',
      type: 'shutdown',
      attempts: 0,
      maxAttempts: 3,
      sentAt: null,
    });
  });

  it("lists the account's batches newest first, each with its counts by state, and never another account's", async () => {
    const first = (await post('/device/command', A.token, { deviceIds: [idOf(1), idOf(2)], type: 'reboot' })).body_
      .data;
    const second = (
      await post('/device/command', A.token, { deviceIds: [idOf(3), idOf(4), idOf(5)], type: 'shutdown' })
    ).body_.data;
    // a single device makes no batch
    await post('/device/command', A.token, { deviceIds: [idOf(1)], type: 'reboot' });
    await post(`/device/task/${second.taskIds[1]}/cancel`, A.token);
    const theirs = (
      await post('/device/command', B.token, {
        deviceIds: [ids.get(specs[6].sn)!, ids.get(specs[7].sn)!],
        type: 'reboot',
      })
    ).body_.data;

    const page = await get('/device/task/batch/list?pageSize=2', A.token);
    expect(page.statusCode).toBe(200);
    const all = (await get('/device/task/batch/list?pageSize=100', A.token)).body_.data;
    expect(page.body_.data.total).toBe(all.total);
    expect(page.body_.data.list.map((b: { id: number }) => b.id)).toEqual([second.batchId, first.batchId]);
    expect(page.body_.data.list[0]).toMatchObject({
      id: second.batchId,
      type: 'shutdown',
      total: 3,
      counts: { queued: 2, canceled: 1, succeeded: 0, running: 0 },
    });
    expect(page.body_.data.list[1]).toMatchObject({
      id: first.batchId,
      type: 'reboot',
      total: 2,
      counts: { queued: 2 },
    });
    expect(Object.keys(page.body_.data.list[0].counts).sort()).toEqual([...TASK_STATES].sort());
    expect(all.list.map((b: { id: number }) => b.id)).not.toContain(theirs.batchId);
    const next = await get('/device/task/batch/list?pageSize=2&pageNo=2', A.token);
    expect(next.body_.data.list.map((b: { id: number }) => b.id)).not.toContain(second.batchId);
    const b = (await get('/device/task/batch/list', B.token)).body_.data;
    expect(b.list.map((x: { id: number }) => x.id)).toEqual([theirs.batchId]);
  });

  it('answers 404 for devices, batches and tasks of another account (the platform admin included) and creates nothing', async () => {
    const admin = (await h.login('admin', ADMIN_PASSWORD)).token;
    const mine = await post('/device/command', A.token, { deviceIds: [idOf(4), idOf(5)], type: 'reboot' });
    const { batchId, taskIds } = mine.body_.data;
    // tasks, batches and the system log's entries of commands: a refused command writes none of them
    const count = async () =>
      (
        await sql<{
          n: string;
        }>`select (select count(*) from device_tasks) || '/' || (select count(*) from task_batches)
          || '/' || (select count(*) from audit_log where action like 'device.%') as n`.execute(h.db)
      ).rows[0].n;
    const before = await count();
    for (const token of [B.token, admin]) {
      expect((await post('/device/command', token, { deviceIds: [idOf(4)], type: 'reboot' })).statusCode).toBe(404);
      expect((await post('/device/command', token, { deviceIds: [idOf(6), idOf(4)], type: 'reboot' })).statusCode).toBe(
        404,
      );
      expect((await get(`/device/task/list?deviceId=${idOf(4)}`, token)).statusCode).toBe(404);
      expect((await get(`/device/task/list?batchId=${batchId}`, token)).statusCode).toBe(404);
      expect((await get(`/device/task/batch/${batchId}`, token)).statusCode).toBe(404);
      expect((await post(`/device/task/${taskIds[0]}/cancel`, token)).statusCode).toBe(404);
    }
    expect((await post('/device/command', A.token, { deviceIds: [999999], type: 'reboot' })).statusCode).toBe(404);
    expect(await count()).toBe(before);
    expect((await taskRow(h, taskIds[0])).state).toBe('queued');
  });
});

/** A service of its own (no live events, no downlink) and a reboot task of device 0 in the given state. */
async function serviceWithTask(state: TaskState, progress: number) {
  const service = new TaskService(
    h.db,
    { publish: () => {} },
    { command: async () => {} },
    { ackTimeoutS: 30, resultTimeoutS: 300, retryBackoffS: 10 },
  );
  const deviceId = idOf(0);
  const row = await h.db
    .insertInto('device_tasks')
    .values({
      tenant_id: A.tenantId,
      device_id: deviceId,
      type: 'reboot',
      params: '{}',
      state,
      progress,
      expire_at: new Date(Date.now() + 3_600_000),
      attempts: state === 'queued' ? 0 : 1,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { service, deviceId, row };
}

describe('the state machine', () => {
  // transitions driven by what a device says, straight on the service: a duplicate or late message never moves a task back
  type Msg =
    | { kind: 'ack'; ok?: boolean }
    | { kind: 'progress'; progress: number }
    | { kind: 'result'; ok: boolean }
    | { kind: 'foreign-ack' };
  const table: Array<[TaskState, number, Msg, TaskState, number]> = [
    ['sent', 0, { kind: 'ack' }, 'delivered', 0],
    ['timeout', 0, { kind: 'ack' }, 'delivered', 0],
    ['delivered', 0, { kind: 'ack' }, 'delivered', 0],
    ['sent', 0, { kind: 'ack', ok: false }, 'failed', 0],
    ['delivered', 0, { kind: 'progress', progress: 40 }, 'running', 40],
    ['sent', 0, { kind: 'progress', progress: 10 }, 'running', 10],
    ['running', 50, { kind: 'progress', progress: 30 }, 'running', 50],
    ['running', 50, { kind: 'ack' }, 'running', 50],
    ['running', 50, { kind: 'result', ok: true }, 'succeeded', 100],
    ['sent', 0, { kind: 'result', ok: true }, 'succeeded', 100],
    ['delivered', 0, { kind: 'result', ok: false }, 'failed', 0],
    ['succeeded', 100, { kind: 'ack' }, 'succeeded', 100],
    ['succeeded', 100, { kind: 'progress', progress: 60 }, 'succeeded', 100],
    ['succeeded', 100, { kind: 'result', ok: false }, 'succeeded', 100],
    ['failed', 0, { kind: 'result', ok: true }, 'failed', 0],
    ['canceled', 0, { kind: 'result', ok: true }, 'canceled', 0],
    ['expired', 0, { kind: 'ack' }, 'expired', 0],
    ['queued', 0, { kind: 'result', ok: true }, 'queued', 0],
    ['sent', 0, { kind: 'foreign-ack' }, 'sent', 0],
  ];
  it.each(table)('%s (%i%%) + %o → %s', async (from, progress, msg, to, progressAfter) => {
    const { service, deviceId, row } = await serviceWithTask(from, progress);
    if (msg.kind === 'ack') await service.onAck(deviceId, { id: row.id, ok: msg.ok ?? true });
    if (msg.kind === 'foreign-ack') await service.onAck(idOf(1), { id: row.id, ok: true });
    if (msg.kind === 'progress') await service.onProgress(deviceId, { id: row.id, progress: msg.progress });
    if (msg.kind === 'result') await service.onResult(deviceId, { id: row.id, ok: msg.ok });
    // a positive ack and a progress report are written without a waiter (the device's next message goes on)
    await service.settled();
    expect(await taskRow(h, row.id)).toMatchObject({ state: to, progress: progressAfter });
  });
});

it('handles a result while the ack and progress before it are still being written, and ends succeeded', async () => {
  const { service, deviceId, row } = await serviceWithTask('sent', 0);
  // as the gateway does: each message after the one before, none of the first two waiting for its write
  await service.onAck(deviceId, { id: row.id, ok: true });
  await service.onProgress(deviceId, { id: row.id, progress: 50 });
  await service.onResult(deviceId, { id: row.id, ok: true });
  // a late progress report (a retransmission) after the result
  await service.onProgress(deviceId, { id: row.id, progress: 60 });
  await service.settled();
  const after = await h.db
    .selectFrom('device_tasks')
    .select(['state', 'progress', 'delivered_at', 'finished_at'])
    .where('id', '=', row.id)
    .executeTakeFirstOrThrow();
  expect(after).toMatchObject({ state: 'succeeded', progress: 100 });
  expect(after.delivered_at).not.toBeNull();
  expect(after.finished_at).not.toBeNull();
});

it('documents the task and event routes in the OpenAPI document', async () => {
  const r = await h.call({ method: 'GET', url: '/apiAdmin/docs/json' });
  expect(r.statusCode).toBe(200);
  const paths = r.json().paths;
  expect(paths['/apiAdmin/device/command'].post.requestBody.content['application/json'].schema.required).toEqual(
    expect.arrayContaining(['deviceIds', 'type']),
  );
  for (const p of [
    '/apiAdmin/device/task/list',
    '/apiAdmin/device/task/batch/{id}',
    '/apiAdmin/device/task/{id}/cancel',
    '/apiAdmin/device/events',
    '/apiAdmin/device/events/ticket',
  ])
    expect(paths[p], p).toBeDefined();
});

describe('live task events', () => {
  let base: string;
  beforeAll(async () => {
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
  });

  it('go only to those who may read tasks: a viewer without device:task gets device events, never task events', async () => {
    const viewer = await subAccount(['device:view']);
    const tasker = await subAccount(['device:view', 'device:task']);
    const [ev, evTasks] = [await openEvents(h, base, viewer), await openEvents(h, base, tasker)];
    try {
      const res = await post('/device/command', A.token, { deviceIds: [idOf(2)], type: 'reboot' });
      const [taskId] = res.body_.data.taskIds;
      await evTasks.waitFor('the task event', (e) => e.type === 'task' && e.data.id === taskId);
      // a device event after it: once the viewer has that, it would have had the task event too
      await h.db
        .updateTable('devices')
        .set({ status: 'online', conn_id: 'c-live' })
        .where('id', '=', idOf(2))
        .execute();
      await h.app.gateway.presence.offline(idOf(2), 'c-live', 'test');
      await ev.waitFor('the device event', (e) => e.type === 'device' && e.data.id === idOf(2));
      expect(ev.events.filter((e) => e.type === 'task')).toEqual([]);
    } finally {
      ev.close();
      evTasks.close();
    }
  });

  it('tells open consoles about the tasks an unbinding cancels', async () => {
    const c = await customer(h);
    const [spec] = makeSpecs(1, { seed: 33, prefix: 'TSKU' });
    const id = (await devicesOf(h, c.tenantId, [spec])).get(spec.sn)!;
    const ev = await openEvents(h, base, c.token);
    try {
      const [taskId] = (await post('/device/command', c.token, { deviceIds: [id], type: 'reboot' })).body_.data.taskIds;
      await ev.waitFor(
        'the queued event',
        (e) => e.type === 'task' && e.data.id === taskId && e.data.state === 'queued',
      );
      expect((await post('/device/unbind', c.token, { id })).statusCode).toBe(200);
      const canceled = await ev.waitFor(
        'the canceled event',
        (e) => e.type === 'task' && e.data.id === taskId && e.data.state === 'canceled',
      );
      expect(canceled.data).toMatchObject({ deviceId: id, error: 'device unbound' });
      expect((await taskRow(h, taskId)).state).toBe('canceled');
    } finally {
      ev.close();
    }
  });
});
