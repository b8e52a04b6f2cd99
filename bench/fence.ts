/**
 * Fence evaluation (issue 16): 10,000 devices and 10,000 fences (50 tenants × 200 fences, the most a tenant may
 * hold; 200 devices per tenant in 10 groups) in an embedded PostgreSQL without PostGIS. Each fence targets one
 * group, so a device is in ~20 fences; one extra tenant is the worst case: 200 devices each in all 200 fences.
 * Location reports go through `FenceService.onLocation` (the gateway's hook after Presence stored the position:
 * the track statement, the device's fences with the bbox prefilter, Turf for the fences whose box holds the
 * point, the writes of what changed), half of them crossing an edge of a fence with dwell 0 so that an event and
 * its alert (the message to the tenant's main account, the live event) are part of the timing. Printed: the
 * latency of one report (p50/p99, one at a time), the throughput with 16 reports in flight, and the server
 * process's CPU per report, beside a bare Fastify route measured in the same run.
 *
 *   node --import tsx bench/fence.ts [--tenants 50] [--reports 3000]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { bareRouteReference, formatSample, loadAverage, log, secs, startScaleDatabase, type Sample } from './scale.ts';
import { FenceService, bboxOf } from '../apps/server/src/modules/fence/index.ts';
import type { FenceShape } from '@cpc/contracts';
import type { Db } from '../apps/server/src/db/database.ts';

const { values: args } = parseArgs({
  options: {
    tenants: { type: 'string', default: '50' },
    reports: { type: 'string', default: '3000' },
  },
});
const TENANTS = Number(args.tenants);
const REPORTS = Number(args.reports);
const FENCES = 200;
const DEVICES = 200;
const GROUPS = 10;
const TENANT_BASE = 2000;
const WORST = TENANT_BASE + TENANTS; // the worst-case tenant: every device in every fence

/** A tenant's fence j: around its city, a circle (even j) or an 8-point polygon (odd j), 200–1,500 m. */
function fenceShape(k: number, j: number) {
  const cLat = 22 + (k % 17);
  const cLng = 104 + (k % 19);
  const lat = cLat + ((j * 7919) % 1000) / 10_000;
  const lng = cLng + ((j * 104_729) % 1000) / 10_000;
  const r = 200 + ((j * 31) % 1300);
  if (j % 2 === 0) return { center: [lng, lat], shape: { type: 'circle', center: [lng, lat], radiusM: r } };
  const dLat = r / 111_320;
  const dLng = dLat / Math.cos((lat * Math.PI) / 180);
  const ring = Array.from({ length: 8 }, (_, i) => {
    const a = (2 * Math.PI * i) / 8;
    return [lng + dLng * Math.cos(a), lat + dLat * Math.sin(a)];
  });
  ring.push(ring[0]);
  return { center: [lng, lat], shape: { type: 'polygon', ring } };
}

async function load(db: Db): Promise<void> {
  const t0 = performance.now();
  const tenants = TENANTS + 1;
  await sql`INSERT INTO device_models (code, name, kind, paper_width_mm) VALUES ('P58', 'Receipt printer 58', 'printer', 58)`.execute(
    db,
  );
  await sql`INSERT INTO tenants (id, kind, name, auth_status)
    SELECT ${TENANT_BASE} + k, 'enterprise', 'tenant_' || k, 1 FROM generate_series(0, ${tenants - 1}) k`.execute(db);
  await sql`INSERT INTO users (tenant_id, username, mobile, password_hash, is_super)
    SELECT ${TENANT_BASE} + k, 'fbench_' || k, NULL, 'not-a-hash', 1 FROM generate_series(0, ${tenants - 1}) k`.execute(
    db,
  );
  await sql`INSERT INTO device_groups (id, tenant_id, parent_id, name)
    SELECT k * ${GROUPS} + g + 1, ${TENANT_BASE} + k, NULL, 'Group ' || g
    FROM generate_series(0, ${tenants - 1}) k, generate_series(0, ${GROUPS - 1}) g`.execute(db);
  await sql`SELECT setval('device_groups_id_seq', (SELECT max(id) FROM device_groups))`.execute(db);
  await sql`INSERT INTO devices (id, sn, tenant_id, model_id, bind_key_hash, secret, group_id)
    SELECT k * ${DEVICES} + n + 1, 'FB' || lpad((k * ${DEVICES} + n)::text, 8, '0'), ${TENANT_BASE} + k, 1, md5(n::text), md5(n::text),
      k * ${GROUPS} + n % ${GROUPS} + 1
    FROM generate_series(0, ${tenants - 1}) k, generate_series(0, ${DEVICES - 1}) n`.execute(db);
  await sql`SELECT setval('devices_id_seq', (SELECT max(id) FROM devices))`.execute(db);
  const rows: Array<Record<string, unknown>> = [];
  for (let k = 0; k < tenants; k++)
    for (let j = 0; j < FENCES; j++) {
      const shape = fenceShape(k, j).shape as FenceShape;
      const [minLng, minLat, maxLng, maxLat] = bboxOf(shape);
      rows.push({
        id: k * FENCES + j + 1,
        tenant_id: TENANT_BASE + k,
        name: `Fence ${j}`,
        shape: JSON.stringify(shape),
        min_lng: minLng,
        min_lat: minLat,
        max_lng: maxLng,
        max_lat: maxLat,
        alert_on: 'both',
        dwell_s: 0,
      });
    }
  for (let i = 0; i < rows.length; i += 1000)
    await db
      .insertInto('fences')
      .values(rows.slice(i, i + 1000) as never)
      .execute();
  await sql`SELECT setval('fences_id_seq', (SELECT max(id) FROM fences))`.execute(db);
  // each fence targets one group of its tenant (a device is in FENCES / GROUPS fences); the worst tenant: every group
  await sql`INSERT INTO fence_targets (tenant_id, fence_id, group_id)
    SELECT f.tenant_id, f.id, (f.tenant_id - ${TENANT_BASE}) * ${GROUPS} + (f.id - 1) % ${GROUPS} + 1
    FROM fences f WHERE f.tenant_id <> ${WORST}`.execute(db);
  await sql`INSERT INTO fence_targets (tenant_id, fence_id, group_id)
    SELECT f.tenant_id, f.id, g.id FROM fences f JOIN device_groups g ON g.tenant_id = f.tenant_id
    WHERE f.tenant_id = ${WORST}`.execute(db);
  await sql`ANALYZE`.execute(db);
  log(`  ${tenants} tenants, ${tenants * DEVICES} devices, ${tenants * FENCES} fences: ${secs(t0)}`);
}

/**
 * Device n of a tenant stands at the centre of the first fence its group is in (inside it); a report is there with
 * a few metres of jitter, or — one in ten — 5 km away, which is a leave for each of its fences that holds home.
 */
function reportFor(tenantIdx: number, n: number, away: boolean, i: number) {
  const id = tenantIdx * DEVICES + n + 1;
  const { center } = fenceShape(tenantIdx, n % GROUPS);
  return { id, lat: center[1] + (away ? 0.05 : 0.00002 * (i % 5)), lng: center[0] + 0.00002 * (i % 3) };
}

async function measure(
  name: string,
  fences: FenceService,
  pick: (i: number) => { id: number; lat: number; lng: number },
  n: number,
  inFlight: number,
): Promise<{ sample: Sample; perSecond: number; cpuMsPerReport: number }> {
  const ms: number[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (;;) {
        const i = next++;
        if (i >= n) return;
        const r = pick(i);
        const s = performance.now();
        await fences.onLocation(r.id, { lat: r.lat, lng: r.lng });
        ms.push(performance.now() - s);
      }
    }),
  );
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return {
    sample: { name, ms },
    perSecond: (n / wall) * 1000,
    cpuMsPerReport: (cpu.user + cpu.system) / 1000 / n,
  };
}

const scale = await startScaleDatabase('fence');
try {
  await load(scale.db);
  let published = 0;
  const fences = new FenceService(scale.db, { publish: () => void published++ }, undefined);
  const devices = TENANTS * DEVICES;
  // the n-th report of a run, from `offset`: every device once before any twice, one report in ten away from home
  const typical = (offset: number) => (i: number) => {
    const d = (i + offset) % devices;
    return reportFor(Math.floor(d / DEVICES), d % DEVICES, i % 10 === 9, i);
  };
  const worst = (offset: number) => (i: number) =>
    reportFor(TENANTS, (i + offset) % DEVICES, Math.floor((i + offset) / DEVICES) % 10 === 9, i);
  // warm-up: every device's first side in each of its fences (baselines, as after the fences were made)
  const tw = performance.now();
  for (let d = 0; d < devices + DEVICES; d++) {
    const r = reportFor(Math.floor(d / DEVICES), d % DEVICES, false, d);
    await fences.onLocation(r.id, r);
  }
  log(`  warm-up (a baseline report of each device): ${secs(tw)}`);
  const ref = await bareRouteReference(REPORTS);
  const runs = [
    await measure('report, device in ~20 fences (one at a time)', fences, typical(0), REPORTS, 1),
    await measure('report, device in ~20 fences (16 in flight)', fences, typical(REPORTS), REPORTS, 16),
    await measure('report, device in all 200 fences (one at a time)', fences, worst(0), Math.min(REPORTS, 1000), 1),
    await measure('report, device in all 200 fences (16 in flight)', fences, worst(1000), Math.min(REPORTS, 1000), 16),
  ];
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM fence_events`.execute(scale.db);
  log('');
  log(formatSample(ref, 62));
  for (const r of runs)
    log(
      `${formatSample(r.sample, 62, 1000)}  ${r.perSecond.toFixed(0).padStart(6)} reports/s  CPU ${r.cpuMsPerReport.toFixed(2)} ms/report (bench process)`,
    );
  log(`fence events recorded: ${rows[0].n}; live events published: ${published}; load average ${loadAverage()}`);
} catch (e) {
  log(`failed: ${(e as Error).stack ?? String(e)}`);
  process.exitCode = 1;
} finally {
  await scale.close();
}
