import { parseArgs } from 'node:util';
import { createFleet } from './fleet.ts';
import { httpControl, stdinControl } from './control.ts';
import { login, registerViaApi } from './register.ts';
import { makeSpecs } from './specs.ts';
import { receiptText } from './receipt.ts';
import { DATA_PROFILES, isDataProfile } from './sim-data.ts';

const USAGE = `Fleet simulator: N virtual devices speaking the device protocol (docs/device-protocol.md).

  npm run sim -- --devices 50 --url mqtt://127.0.0.1:1883 [options]

  --devices N            how many devices (default 10)
  --url URL              the broker (default mqtt://127.0.0.1:1883)
  --seed N               the fleet's seed: same seed, same serial numbers, secrets and bind keys (default 1)
  --prefix P             serial-number prefix (default SIM<seed>)
  --heartbeat S          heartbeat interval in seconds (default 30)
  --ramp N               connections opened per second (default 200)
  --data-rate-scale X    simulated hours of SIM data use per real hour (default 1; 3600: an hour a second)
  --data-profile P       every SIM's usage profile: heavy, normal or idle (default: drawn per device,
                         15 % heavy, 60 % normal, 25 % idle)
  --data-retry S         out of data, a device tries the network again every S seconds (default 60)
  --download-speed B     firmware download speed per device in bytes per second (default 2000000; 0: unlimited)
  --fail-checksum R      share (0–1) of upgrades whose image fails its SHA-256 check (default 0)
  --fail-storage R       share (0–1) of upgrades refused for lack of storage (default 0)
  --fail-model R         share (0–1) of upgrades refused as firmware of another model (default 0)
  --app-bad-checksum R   share (0–1) of app/model installs whose download arrives corrupted (default 0)
  --app-no-storage R     share (0–1) of app/model installs refused for lack of storage (default 0)
  --route-share R        share (0–1) of devices driving routes across their city (default 0.05)
  --wander-share R       share (0–1) of devices wandering off from where they stand (default 0.02)
  --location-every S     report the location every S seconds (default: every 10th heartbeat when it changed)
  --static-credential    use the fixed password a broker's password file holds (Mosquitto) instead of the timed one
  --register             register the devices first (skipping those already registered), through:
    --api URL              the console API as platform staff, with --token T or --admin user:password, or
    --database-url URL     the database directly (development)
  --print-keys           print each device's sn and bind key (to bind them in the console)
  --show-prints          print each receipt a device prints, as the text lines it put on paper
  --control-port P       a local HTTP control (GET /devices, POST /devices/{sn}/power-on, …)

stdin: power-on <sn>, kill <sn>, paper-out <sn>, paper-ok <sn>, cover-open <sn>, cover-close <sn>, overheat <sn>,
  cool-down <sn>, silence <sn>, resume <sn>, move <sn> <lat> <lng>, list, stats, help`;

const { values } = parseArgs({
  options: {
    devices: { type: 'string', default: '10' },
    url: { type: 'string', default: 'mqtt://127.0.0.1:1883' },
    seed: { type: 'string', default: '1' },
    prefix: { type: 'string' },
    heartbeat: { type: 'string', default: '30' },
    ramp: { type: 'string', default: '200' },
    'data-rate-scale': { type: 'string', default: '1' },
    'data-profile': { type: 'string' },
    'data-retry': { type: 'string', default: '60' },
    'download-speed': { type: 'string', default: '2000000' },
    'fail-checksum': { type: 'string', default: '0' },
    'fail-storage': { type: 'string', default: '0' },
    'fail-model': { type: 'string', default: '0' },
    'app-bad-checksum': { type: 'string', default: '0' },
    'app-no-storage': { type: 'string', default: '0' },
    'route-share': { type: 'string', default: '0.05' },
    'wander-share': { type: 'string', default: '0.02' },
    'location-every': { type: 'string' },
    'static-credential': { type: 'boolean', default: false },
    register: { type: 'boolean', default: false },
    api: { type: 'string' },
    token: { type: 'string' },
    admin: { type: 'string' },
    'database-url': { type: 'string' },
    'print-keys': { type: 'boolean', default: false },
    'show-prints': { type: 'boolean', default: false },
    'control-port': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const int = (name: string, v: string, min: number) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name}: must be an integer ≥ ${min}\n\n${USAGE}`);
    process.exit(2);
  }
  return n;
};
const count = int('devices', values.devices, 1);
const seed = int('seed', values.seed, 0);
const heartbeatS = int('heartbeat', values.heartbeat, 1);
const dataRateScale = Number(values['data-rate-scale']);
if (!Number.isFinite(dataRateScale) || dataRateScale <= 0) {
  console.error(`--data-rate-scale: must be a number > 0\n\n${USAGE}`);
  process.exit(2);
}
const dataProfile = values['data-profile'];
if (dataProfile !== undefined && !isDataProfile(dataProfile)) {
  console.error(`--data-profile: one of ${Object.keys(DATA_PROFILES).join(', ')}\n\n${USAGE}`);
  process.exit(2);
}
const dataRetryS = int('data-retry', values['data-retry'], 1);
const rate = (
  name:
    | 'fail-checksum'
    | 'fail-storage'
    | 'fail-model'
    | 'app-bad-checksum'
    | 'app-no-storage'
    | 'route-share'
    | 'wander-share',
) => {
  const x = Number(values[name]);
  if (!Number.isFinite(x) || x < 0 || x > 1) {
    console.error(`--${name}: a share between 0 and 1\n\n${USAGE}`);
    process.exit(2);
  }
  return x;
};
const upgrade = {
  bytesPerSecond: int('download-speed', values['download-speed'], 0),
  badChecksumRate: rate('fail-checksum'),
  noStorageRate: rate('fail-storage'),
  incompatibleRate: rate('fail-model'),
};
const software = { badChecksumRate: rate('app-bad-checksum'), noStorageRate: rate('app-no-storage') };
const movement = { routeShare: rate('route-share'), wanderShare: rate('wander-share') };
const locationEveryS = values['location-every'] ? int('location-every', values['location-every'], 1) : undefined;
const specs = makeSpecs(count, { seed, prefix: values.prefix });
const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);

if (values.register) {
  if (values['database-url']) {
    const { createDb } = await import('../../server/src/public.ts');
    const { registerInDb } = await import('./register-db.ts');
    const db = createDb(values['database-url'], 2);
    await registerInDb(db, specs);
    await db.destroy();
    log(`registered ${specs.length} devices in the database`);
  } else if (values.api) {
    let token = values.token;
    if (!token && values.admin) {
      const [user, ...rest] = values.admin.split(':');
      token = await login(values.api, user, rest.join(':'));
    }
    if (!token) throw new Error('--register --api needs --token or --admin user:password');
    const r = await registerViaApi(values.api, token, specs);
    log(`registered ${r.registered} devices through ${values.api} (${r.existing} were already registered)`);
  } else {
    console.error(`--register needs --api or --database-url\n\n${USAGE}`);
    process.exit(2);
  }
}
if (values['print-keys']) for (const s of specs) log(`${s.sn} bind key ${s.bindKey} (${s.city.name})`);

log(`connecting ${count} devices to ${values.url} (heartbeat ${heartbeatS} s)`);
const fleet = await createFleet({
  url: values.url,
  specs,
  seed,
  heartbeatS,
  credential: values['static-credential'] ? 'static' : 'timed',
  rampPerSecond: int('ramp', values.ramp, 0),
  dataRateScale,
  dataProfile,
  dataRetryS,
  upgrade,
  software,
  movement,
  locationEveryS,
  start: false,
});
for (const d of fleet.devices) {
  d.on('executed', (m: { type: string; id: string }) => log(`${d.sn} ${m.type} (task ${m.id})`));
  d.on('no-data', () => log(`${d.sn} offline: no data left on the SIM (${d.usedMb} MB used)`));
  if (values['show-prints']) {
    // the job is the last one on the printed list when its event fires
    d.on('printed', (m: { id: string }) => {
      const job = d.printed.at(-1);
      if (job?.id === m.id) log(receiptText(d.sn, job));
    });
  }
}
void fleet.start().then(
  () => log(`all ${count} devices online`),
  (e: Error) => log(`not every device came online: ${e.message}`),
);
stdinControl(fleet, log);
if (values['control-port']) {
  const port = int('control-port', values['control-port'], 1);
  await httpControl(fleet, port);
  log(`control on http://127.0.0.1:${port}/devices`);
}
const status = setInterval(() => log(JSON.stringify(fleet.stats())), 30_000);
let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (stopping) process.exit(1);
    stopping = true;
    clearInterval(status);
    log('stopping the fleet');
    fleet.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
