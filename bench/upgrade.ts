/**
 * A firmware roll-out to --devices devices (default 10,000) on one server node (issue 15). The devices are cheap
 * simulated clients: each task the release starts is downloaded for real over HTTP from its signed link (as fast
 * as the server sends), then reported through the task service as the gateway would (progress, the new version as
 * its hello writes it, the result). Measured in the same run:
 * - server CPU (% of one core) and RSS while --throttle (500) devices download at once (the first wave);
 * - download throughput of the device links against the same file served as a plain static file by the same
 *   server, both with --throttle parallel clients;
 * - the roll-out's bookkeeping: the time spent in the release's reconcile, per device, and the whole roll-out.
 *
 *   node --import tsx bench/upgrade.ts [--devices 10000] [--throttle 500] [--size-kb 256]
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { loadConfig } from '../apps/server/src/config.ts';
import { buildApp } from '../apps/server/src/app.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs } from '../apps/device-sim/src/specs.ts';
import { log, secs, startScaleDatabase } from './scale.ts';

const { values: args } = parseArgs({
  options: {
    devices: { type: 'string', default: '10000' },
    throttle: { type: 'string', default: '500' },
    'size-kb': { type: 'string', default: '256' },
  },
});
const DEVICES = Number(args.devices);
const THROTTLE = Number(args.throttle);
const SIZE = Number(args['size-kb']) * 1024;

/** GET a URL, counting the bytes; resolves with the count. */
const fetchBytes = (url: string, agent: http.Agent) =>
  new Promise<number>((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => (n += c.length));
        res.on('end', () => (res.statusCode === 200 ? resolve(n) : reject(new Error(`HTTP ${res.statusCode}`))));
        res.on('error', reject);
      })
      .on('error', reject);
  });

async function main() {
  const s = await startScaleDatabase('upgrade');
  const dist = path.join(s.dir, 'web');
  fs.mkdirSync(dist, { recursive: true });
  fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>bench</title>');
  const bytes = randomBytes(SIZE);
  fs.writeFileSync(path.join(dist, 'fw.bin'), bytes);
  const config = loadConfig({
    DATA_DIR: path.join(s.dir, 'data'),
    DATABASE_URL: s.url,
    LOG_LEVEL: 'silent',
    CAPTCHA_PROVIDER: 'off',
    NODE_ENV: 'test',
    MQTT_PORT: '0',
    SWEEP_INTERVAL_MS: '60000',
    WEB_DIST: dist,
  });
  const app = await buildApp(config, s.db);
  await app.ready();
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    let t0 = performance.now();
    const specs = makeSpecs(DEVICES, { seed: 1015, prefix: 'BUP' });
    const tenant = await s.db
      .insertInto('tenants')
      .values({ kind: 'enterprise', name: 'bench', auth_status: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const user = await s.db
      .insertInto('users')
      .values({ tenant_id: tenant.id, username: 'bench_upgrade', password_hash: 'x', is_super: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await registerInDb(s.db, specs);
    await bindInDb(
      s.db,
      Number(tenant.id),
      specs.map((x) => x.sn),
    );
    // online as far as the database knows (no MQTT session: the commands go nowhere, the clients below act)
    await sql`UPDATE devices SET status = 'online', firmware = '1.0.0' WHERE tenant_id = ${tenant.id}`.execute(s.db);
    const key = `bench/${randomBytes(6).toString('hex')}/fw.bin`;
    fs.mkdirSync(path.dirname(app.storage.pathOf(key)), { recursive: true });
    fs.writeFileSync(app.storage.pathOf(key), bytes);
    await s.db
      .insertInto('objects')
      .values({
        key,
        tenant_id: tenant.id,
        user_id: user.id,
        bucket: 'package',
        size: SIZE,
        mime: 'application/octet-stream',
        original_name: 'fw.bin',
      })
      .execute();
    const pkg = await s.db
      .insertInto('packages')
      .values({
        tenant_id: tenant.id,
        kind: 'firmware',
        name: 'bench',
        identifier: 'BENCH',
        version_name: '2.0.0',
        object_key: key,
        size: SIZE,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    log(`${DEVICES.toLocaleString('en')} devices bound, firmware of ${SIZE / 1024} KB: ${secs(t0)}`);

    // the plain static file, THROTTLE clients at once
    const agent = new http.Agent({ keepAlive: true, maxSockets: THROTTLE });
    t0 = performance.now();
    const staticBytes = (
      await Promise.all(Array.from({ length: THROTTLE }, () => fetchBytes(`${base}/fw.bin`, agent)))
    ).reduce((a, b) => a + b, 0);
    const staticMbps = staticBytes / 1024 / 1024 / ((performance.now() - t0) / 1000);
    log(
      `static file: ${THROTTLE} downloads, ${(staticBytes / 1024 / 1024).toFixed(0)} MB at ${staticMbps.toFixed(0)} MB/s`,
    );

    // bookkeeping: time inside the release's reconcile
    const upgrades = app.upgrades;
    let reconcileMs = 0;
    let reconciles = 0;
    const reconcile = upgrades.reconcile.bind(upgrades);
    upgrades.reconcile = async (id: number) => {
      const r0 = performance.now();
      try {
        await reconcile(id);
      } finally {
        reconcileMs += performance.now() - r0;
        reconciles++;
      }
    };

    // the cheap devices: each new upgrade task is downloaded and reported
    const deviceOf = new Map<string, number>();
    let downloaded = 0;
    let downloadBytes = 0;
    let active = 0;
    let maxActive = 0;
    const samples: Array<{ cpu: number; rss: number }> = [];
    let firstWave = true;
    const work = async (taskId: string, deviceId: number, url: string) => {
      active++;
      maxActive = Math.max(maxActive, active);
      await sql`UPDATE device_tasks SET state = 'sent' WHERE id = ${taskId}::uuid AND state = 'queued'`.execute(s.db);
      await app.tasks.onProgress(deviceId, { id: taskId, progress: 0, stage: 'downloading' });
      const got = await fetchBytes(url, agent);
      if (got !== SIZE) log(`short download: ${got} of ${SIZE} bytes`);
      downloadBytes += got;
      downloaded++;
      await sql`UPDATE devices SET firmware = '2.0.0' WHERE id = ${deviceId}`.execute(s.db);
      active--;
      await app.tasks.onResult(deviceId, { id: taskId, ok: true, data: { version: '2.0.0' } });
    };
    const started = new Set<string>();
    const pending: Promise<void>[] = [];
    const pick = async () => {
      const { rows } = await sql<{ id: string; device_id: number }>`
        SELECT id, device_id FROM device_tasks WHERE type = 'upgrade' AND state IN ('queued', 'sent') AND tenant_id = ${tenant.id}`.execute(
        s.db,
      );
      for (const r of rows) {
        if (started.has(r.id)) continue;
        started.add(r.id);
        deviceOf.set(r.id, Number(r.device_id));
        const { deviceDownloadUrl } = await import('../apps/server/src/modules/package/index.ts');
        const url = base + deviceDownloadUrl(app.storage, r.id, new Date(Date.now() + 3600_000));
        pending.push(
          work(r.id, Number(r.device_id), url).catch((e: Error) => {
            log(`device ${r.device_id}: ${e.message}`);
          }),
        );
      }
    };

    const session = await s.db
      .insertInto('sessions')
      .values({ id: sql<string>`gen_random_uuid()`, tenant_id: tenant.id, user_id: user.id })
      .returning('id')
      .executeTakeFirstOrThrow();
    const token = await (
      await s.tokens()
    ).sign({ userId: Number(user.id), tenantId: Number(tenant.id), sessionId: session.id });
    t0 = performance.now();
    const res = await app.inject({
      method: 'POST',
      url: '/apiAdmin/upgrade/release/create',
      headers: { authorization: `Bearer ${token}` },
      payload: {
        name: 'bench',
        packageId: Number(pkg.id),
        targets: { versions: ['1.0.0'] },
        canaryPercent: 0,
        soakMinutes: null,
        throttle: THROTTLE,
        window: null,
        failPercent: 50,
        failMinCount: 100,
        expireAt: new Date(Date.now() + 3600_000).toISOString(),
      },
    });
    if (res.statusCode !== 200) throw new Error(`create: ${res.body}`);
    const releaseId = (JSON.parse(res.body) as { data: { id: number } }).data.id;
    log(`release created (devices resolved, first ${THROTTLE} tasks): ${secs(t0)}`);
    let cpu0 = process.cpuUsage();
    let at0 = performance.now();
    const sampler = setInterval(() => {
      if (!firstWave) return;
      const c = process.cpuUsage(cpu0);
      const dt = performance.now() - at0;
      samples.push({ cpu: ((c.user + c.system) / 1000 / dt) * 100, rss: process.memoryUsage().rss });
      cpu0 = process.cpuUsage();
      at0 = performance.now();
    }, 500);
    for (;;) {
      await pick();
      if (downloaded >= THROTTLE) firstWave = false;
      const r = await s.db
        .selectFrom('upgrade_releases')
        .select('state')
        .where('id', '=', releaseId)
        .executeTakeFirstOrThrow();
      if (r.state === 'completed') break;
      await new Promise((x) => setTimeout(x, 100));
    }
    clearInterval(sampler);
    await Promise.all(pending);
    const total = (performance.now() - t0) / 1000;
    const linkMbps = downloadBytes / 1024 / 1024 / total;
    const cpu = samples.map((x) => x.cpu);
    const rss = samples.map((x) => x.rss / 1024 / 1024);
    log(
      `roll-out to ${DEVICES.toLocaleString('en')} devices, ${THROTTLE} at a time: completed in ${total.toFixed(1)} s (max ${maxActive} downloading at once)`,
    );
    const cpuMean = (cpu.reduce((a, b) => a + b, 0) / Math.max(1, cpu.length)).toFixed(0);
    const cpuMax = Math.max(0, ...cpu).toFixed(0);
    log(
      `  while ${THROTTLE} downloaded at once: CPU mean ${cpuMean} % / max ${cpuMax} % of one core ` +
        `(server, DB apart; clients in-process), RSS max ${Math.max(0, ...rss).toFixed(0)} MB`,
    );
    log(
      `  device links: ${(downloadBytes / 1024 / 1024).toFixed(0)} MB at ${linkMbps.toFixed(0)} MB/s over the roll-out (the static file alone: ${staticMbps.toFixed(0)} MB/s)`,
    );
    log(
      `  bookkeeping: ${reconciles} reconciles, ${reconcileMs.toFixed(0)} ms inside them (waits for the release's ` +
        `lock included), ${((reconcileMs / DEVICES) * 1000).toFixed(0)} µs per device; ` +
        `whole roll-out ${((total / DEVICES) * 1000).toFixed(1)} ms per device`,
    );
    agent.destroy();
  } finally {
    await app.close();
    await s.close();
  }
}

await main();
