/**
 * A push to --devices devices (default 10,000) on one server node (issue 16): the whole fleet of one account, all
 * online as far as the database knows (no MQTT session: the commands go to the broker and nowhere further). The
 * devices are cheap in-process clients that answer each `push_message` as the gateway would hand it on (ack, then
 * result ok = displayed), --concurrency at a time. Measured in the same run:
 * - the create call: devices resolved, --devices deliveries and tasks inserted, every task published (sent);
 * - time until every online device has it (all displayed, read from the push's counts), and per device;
 * - server CPU (% of one core) while the devices answer, and the live `push` events the consoles got (coalesced);
 * - reference: the same number of plain `reboot` tasks through the task framework alone (insert, publish, ack,
 *   result), so the push's own cost shows beside the framework's.
 *
 *   node --import tsx bench/push.ts [--devices 10000] [--concurrency 50]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs } from '../apps/device-sim/src/specs.ts';
import { log, secs, startScaleDatabase } from './scale.ts';

const { values: args } = parseArgs({
  options: { devices: { type: 'string', default: '10000' }, concurrency: { type: 'string', default: '50' } },
});
const DEVICES = Number(args.devices);
const CONCURRENCY = Number(args.concurrency);

/** Runs `fn` over `items`, `n` at a time. */
async function pool<T>(items: T[], n: number, fn: (x: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (i < items.length) await fn(items[i++]);
    }),
  );
}

async function main() {
  const s = await startScaleDatabase('push');
  const app = await s.app();
  try {
    let t0 = performance.now();
    const specs = makeSpecs(DEVICES, { seed: 1016, prefix: 'BPU' });
    const tenant = await s.db
      .insertInto('tenants')
      .values({ kind: 'enterprise', name: 'bench', auth_status: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const user = await s.db
      .insertInto('users')
      .values({ tenant_id: tenant.id, username: 'bench_push', password_hash: 'x', is_super: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await registerInDb(s.db, specs);
    await bindInDb(
      s.db,
      Number(tenant.id),
      specs.map((x) => x.sn),
    );
    await sql`UPDATE devices SET status = 'online' WHERE tenant_id = ${tenant.id}`.execute(s.db);
    log(`${DEVICES.toLocaleString('en')} devices bound and online: ${secs(t0)}`);
    const session = await s.db
      .insertInto('sessions')
      .values({ id: sql<string>`gen_random_uuid()`, tenant_id: tenant.id, user_id: user.id })
      .returning('id')
      .executeTakeFirstOrThrow();
    const token = await (
      await s.tokens()
    ).sign({ userId: Number(user.id), tenantId: Number(tenant.id), sessionId: session.id });
    const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
      const res = await app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, payload });
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.body}`);
      return (JSON.parse(res.body) as { data: Record<string, unknown> }).data;
    };

    // the devices: each task of the type gets an ack, then its result, CONCURRENCY devices at a time
    const answer = async (type: 'push_message' | 'reboot') => {
      const { rows } = await sql<{ id: string; device_id: string }>`
        SELECT id, device_id FROM device_tasks WHERE type = ${type} AND state = 'sent' AND tenant_id = ${tenant.id}`.execute(
        s.db,
      );
      await pool(rows, CONCURRENCY, async (r) => {
        await app.tasks.onAck(Number(r.device_id), { id: r.id, ok: true });
        await app.tasks.onResult(Number(r.device_id), { id: r.id, ok: true, data: { displayed: true } });
      });
      return rows.length;
    };
    const cpuOf = async (fn: () => Promise<unknown>) => {
      const c0 = process.cpuUsage();
      const a0 = performance.now();
      await fn();
      const c = process.cpuUsage(c0);
      const ms = performance.now() - a0;
      return { ms, cpu: ((c.user + c.system) / 1000 / ms) * 100 };
    };

    // reference: plain tasks through the framework alone
    const devices = await s.db.selectFrom('devices').select('id').where('tenant_id', '=', tenant.id).execute();
    const refCreate = await cpuOf(async () => {
      const { enqueueTasks } = await import('../apps/server/src/modules/task/index.ts');
      const { TenantScope } = await import('../apps/server/src/db/tenant-scope.ts');
      const scope = new TenantScope(s.db, Number(tenant.id));
      const ids: string[] = [];
      for (let i = 0; i < devices.length; i += 2000) {
        const rows = await enqueueTasks(
          scope,
          devices.slice(i, i + 2000).map((d) => ({
            deviceId: Number(d.id),
            type: 'reboot' as const,
            params: {},
            expireAt: new Date(Date.now() + 3600_000),
            createdBy: null,
          })),
        );
        ids.push(...rows.map((r) => r.id));
      }
      for (let i = 0; i < ids.length; i += 2000) await app.tasks.dispatch(ids.slice(i, i + 2000));
    });
    const refAnswer = await cpuOf(() => answer('reboot'));
    log(
      `reference, ${DEVICES.toLocaleString('en')} plain tasks: inserted + published ${(refCreate.ms / 1000).toFixed(1)} s, ` +
        `ack + result ${(refAnswer.ms / 1000).toFixed(1)} s (CPU ${refAnswer.cpu.toFixed(0)} % of one core)`,
    );

    // the push, counting the live events the consoles get
    let pushEvents = 0;
    const events = Reflect.get(app.pushes, 'events') as { publish: (t: unknown, e: { type: string }) => void };
    const publish = events.publish.bind(events);
    events.publish = (tenantId, e) => {
      if (e.type === 'push') pushEvents++;
      publish(tenantId, e);
    };
    let id = 0;
    t0 = performance.now();
    const created = await cpuOf(() =>
      call('POST', '/apiAdmin/push/create', {
        kind: 'notice',
        title: 'Closing at 20:00',
        body: 'Maintenance for 30 minutes',
        noticeSeconds: 30,
        targets: { all: true },
        expireAt: new Date(Date.now() + 3600_000).toISOString(),
      }).then((d) => (id = Number(d.id))),
    );
    const sent = await s.db
      .selectFrom('device_tasks')
      .select(sql<string>`count(*)`.as('n'))
      .where('type', '=', 'push_message')
      .where('state', '=', 'sent')
      .executeTakeFirstOrThrow();
    log(
      `push create: ${(created.ms / 1000).toFixed(1)} s for ${DEVICES.toLocaleString('en')} deliveries ` +
        `(${Number(sent.n).toLocaleString('en')} sent to the broker; CPU ${created.cpu.toFixed(0)} %)`,
    );
    const answered = await cpuOf(() => answer('push_message'));
    let detail: Record<string, unknown> = {};
    for (;;) {
      detail = await call('GET', `/apiAdmin/push/detail?id=${id}`);
      if ((detail.counts as { displayed: number }).displayed >= DEVICES) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const total = (performance.now() - t0) / 1000;
    await app.pushes.finishDone();
    await new Promise((r) => setTimeout(r, 1000));
    const state = (await call('GET', `/apiAdmin/push/detail?id=${id}`)).state;
    log(
      `every online device displayed it: ${total.toFixed(1)} s from the create call ` +
        `(${((total / DEVICES) * 1000).toFixed(2)} ms per device; devices answering: ${(answered.ms / 1000).toFixed(1)} s, ` +
        `CPU ${answered.cpu.toFixed(0)} % of one core, server and clients in one process)`,
    );
    const t1 = performance.now();
    await call('GET', `/apiAdmin/push/deliveries?id=${id}&pageSize=20&state=displayed`);
    const dMs = performance.now() - t1;
    const t2 = performance.now();
    await call('GET', `/apiAdmin/push/list`);
    log(
      `  state ${String(state)}; live push events: ${pushEvents} for ${(DEVICES * 3).toLocaleString('en')} task changes; ` +
        `deliveries page ${dMs.toFixed(0)} ms, push list ${(performance.now() - t2).toFixed(0)} ms`,
    );
  } finally {
    await s.close();
  }
}

await main();
