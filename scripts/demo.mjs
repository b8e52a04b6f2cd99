// `npm run demo`: the console with its embedded PostgreSQL and device broker, a demo customer, and a simulated
// fleet of 50 devices bound to it across several provinces and groups. Run through `node --import tsx`.
import { ensureWebBuilt } from './web-build.mjs';
import { startFailure, startServer } from '../apps/server/src/server.ts';
import { hashPassword } from '../apps/server/src/lib/password.ts';
import { createFleet } from '../apps/device-sim/src/fleet.ts';
import { makeSpecs } from '../apps/device-sim/src/specs.ts';
import { bindInDb, registerInDb, setSimPlans } from '../apps/device-sim/src/register-db.ts';
import { dayFactor } from '../apps/device-sim/src/sim-data.ts';
import { stdinControl } from '../apps/device-sim/src/control.ts';
import { provinceAt } from '../packages/contracts/src/geo/provinces.ts';

const DEMO_USER = 'demo';
const DEMO_PASSWORD = 'Demo12345';
const DEVICES = Number(process.env.DEMO_DEVICES ?? 50);
// a few devices stay switched off, so the console shows both states
const SWITCHED_OFF = 4;
// three SIMs near the edge: a few MB left and heavy use, they run out of data a few minutes after the start
const NEAR_EDGE = [5, 6, 7].filter((i) => i < DEVICES);
const EDGE_LEFT_MB = 4;
const EDGE_RUN_OUT_S = 110;
// out of data, a device tries the network again this often (a top-up shows within it)
const DATA_RETRY_S = 20;
const DAY = 86_400_000;

/** Groups of the demo account: regions, and one store under East China. */
const REGIONS = [
  {
    name: '华东门店',
    cities: ['Shanghai', 'Hangzhou', 'Nanjing', 'Suzhou', 'Hefei', 'Nanchang', 'Jinan', 'Qingdao', 'Fuzhou', 'Xiamen'],
  },
  { name: '华南门店', cities: ['Guangzhou', 'Shenzhen', 'Nanning', 'Haikou'] },
  {
    name: '华北门店',
    cities: ['Beijing', 'Tianjin', 'Shijiazhuang', 'Taiyuan', 'Hohhot', 'Shenyang', 'Changchun', 'Harbin'],
  },
  { name: '中西部门店', cities: [] },
];
const SUBGROUP = { name: '上海旗舰店', parent: '华东门店', cities: ['Shanghai'] };

// A stop asked for while the demo is still being set up waits until it is (the setup's queries would fail on a
// closed pool): the embedded PostgreSQL runs in its own process group and would outlive a process ended by the
// signal's default action.
let running;
let fleet;
let ready = false;
let stopping = false;
let stopAsked = false;
async function stop() {
  if (stopping || !ready) return;
  stopping = true;
  // in order: the simulated devices, then the server (it closes its pools before PostgreSQL stops)
  await fleet?.stop().catch(() => {});
  try {
    await running.stop();
  } catch (e) {
    process.stderr.write(`stopping failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
  process.exit(0);
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    // a second Ctrl-C ends at once; the database is still asked to stop as the process exits
    if (stopping) process.exit(1);
    stopAsked = true;
    void stop();
  });
}

if (!process.env.WEB_DIST) ensureWebBuilt();
try {
  running = await startServer({ DATA_DIR: 'data/demo', ...process.env });
} catch (e) {
  process.stderr.write(`${startFailure(e)}\n`);
  process.exit(1);
}
const { db } = running;

// The demo customer: an authenticated enterprise whose main account has known credentials.
let user = await db
  .selectFrom('users')
  .select(['id', 'tenant_id'])
  .where('username', '=', DEMO_USER)
  .executeTakeFirst();
if (!user) {
  const tenant = await db
    .insertInto('tenants')
    .values({
      kind: 'enterprise',
      name: '云打印演示科技有限公司',
      auth_status: 1,
      attest_name: '云打印演示科技有限公司',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  user = await db
    .insertInto('users')
    .values({
      tenant_id: tenant.id,
      username: DEMO_USER,
      mobile: null,
      password_hash: await hashPassword(DEMO_PASSWORD),
      is_super: 1,
    })
    .returning(['id', 'tenant_id'])
    .executeTakeFirstOrThrow();
} else {
  await db
    .updateTable('users')
    .set({ password_hash: await hashPassword(DEMO_PASSWORD), state: 'active' })
    .where('id', '=', user.id)
    .execute();
}
const tenantId = user.tenant_id;

async function group(name, parentId = null) {
  const found = await db
    .selectFrom('device_groups')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .executeTakeFirst();
  if (found) return found.id;
  return (
    await db
      .insertInto('device_groups')
      .values({ tenant_id: tenantId, parent_id: parentId, name })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
}
const groupIds = new Map();
for (const r of REGIONS) groupIds.set(r.name, await group(r.name));
groupIds.set(SUBGROUP.name, await group(SUBGROUP.name, groupIds.get(SUBGROUP.parent)));

// The fleet: registered as the factory would, then bound to the demo account, named after where it stands.
const specs = makeSpecs(DEVICES, { seed: 7, prefix: 'DEMO' });
await registerInDb(db, specs);
const groupOf = (city) =>
  SUBGROUP.cities.includes(city)
    ? SUBGROUP.name
    : (REGIONS.find((r) => r.cities.includes(city)) ?? REGIONS.at(-1)).name;
const perCity = new Map();
const names = new Map(
  specs.map((s) => {
    const n = (perCity.get(s.city.name) ?? 0) + 1;
    perCity.set(s.city.name, n);
    return [s.sn, `${s.city.zh}收银台${String(n).padStart(2, '0')}`];
  }),
);
for (const [name, id] of groupIds) {
  const sns = specs.filter((s) => groupOf(s.city.name) === name).map((s) => s.sn);
  if (sns.length) await bindInDb(db, tenantId, sns, { groupId: id, name: (sn) => names.get(sn) });
}

fleet = await createFleet({
  url: running.mqttUrl,
  specs,
  seed: 7,
  heartbeatS: 30,
  rampPerSecond: 25,
  dataProfile: (_, i) => (NEAR_EDGE.includes(i) ? 'heavy' : undefined),
  dataRetryS: DATA_RETRY_S,
  start: false,
});

// Data plans for the SIMs (registration leaves them empty), kept from an earlier run (a package bought then):
// 1, 2 or 5 GB with the three carriers, expiring over the next months, two of them within a week. The SIMs near
// the edge get a few MB left at every start, and a time scale that uses them up in a few minutes.
const CARRIERS = ['cmcc', 'cmcc', 'cucc', 'ctcc', 'cmcc', 'cucc'];
const PLANS = [1024, 2048, 1024, 5120, 2048];
const withPlan = new Set(
  (
    await db
      .selectFrom('sims')
      .select('iccid')
      .where(
        'iccid',
        'in',
        specs.map((s) => s.iccid),
      )
      .where('plan_total_mb', '>', '0')
      .execute()
  ).map((r) => r.iccid),
);
await setSimPlans(db, specs, (s, i) => {
  const used = fleet.devices[i].usedMb;
  if (NEAR_EDGE.includes(i))
    return { planMb: used + EDGE_LEFT_MB, usedMb: used, expiresAt: new Date(Date.now() + (40 + i) * DAY) };
  if (withPlan.has(s.iccid)) return undefined;
  const days = i === 8 ? 3 : i === 9 ? 6 : 20 + ((i * 37) % 160);
  return {
    carrier: CARRIERS[i % CARRIERS.length],
    planMb: PLANS[i % PLANS.length],
    usedMb: used,
    expiresAt: new Date(Date.now() + days * DAY),
  };
});
for (const i of NEAR_EDGE) {
  // as fast as it takes to use the MB left in about EDGE_RUN_OUT_S at this hour's rate
  const d = fleet.devices[i];
  const perHour = d.sim.mbPerHour * dayFactor(new Date().getHours());
  d.sim.rateScale = (EDGE_LEFT_MB / perHour) * (3600 / EDGE_RUN_OUT_S);
}
await Promise.all(fleet.devices.slice(SWITCHED_OFF).map((d) => d.powerOn()));
fleet.devices[SWITCHED_OFF].runOutOfPaper();

const provinces = new Set(specs.map((s) => provinceAt(s.city.lat, s.city.lng)));
const { admin, url, mqttUrl } = running;
process.stdout.write(
  [
    '',
    `  Cloud Print Console demo is running at ${url}/`,
    `  Demo customer: ${DEMO_USER} / ${DEMO_PASSWORD}   (${DEVICES} simulated devices in ${groupIds.size} groups, ${provinces.size} provinces; ${SWITCHED_OFF} switched off)`,
    admin.password
      ? `  Platform admin: ${admin.username} / ${admin.password}`
      : `  Platform admin: ${admin.username} (password as printed on the first start of the demo)`,
    `  Device broker: ${mqttUrl}`,
    `  Near the edge: ${NEAR_EDGE.map((i) => specs[i].sn).join(', ')} have ${EDGE_LEFT_MB} MB of data left and use it fast:`,
    `    within 2–3 minutes they run out and go offline (no data); buy them a package and they come back online within ${DATA_RETRY_S} s.`,
    `  Devices: ${specs[0].sn} … ${specs.at(-1).sn}. Type \`power-on ${specs[0].sn}\`, \`kill <sn>\`, \`paper-out <sn>\`, \`cover-open <sn>\`, \`overheat <sn>\`, \`list\` or \`help\` here.`,
    '',
  ].join('\n') + '\n',
);
stdinControl(fleet, (line) => process.stdout.write(`${line}\n`));
for (const i of NEAR_EDGE) {
  const d = fleet.devices[i];
  d.on('no-data', () => process.stdout.write(`${d.sn}: no data left on the SIM, offline until a top-up\n`));
}

ready = true;
if (stopAsked) void stop();
