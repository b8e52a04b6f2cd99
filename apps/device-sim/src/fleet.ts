import type { UpgradeSimOptions } from './upgrade.ts';
import { VirtualDevice, type Credential, type DeviceOptions } from './device.ts';
import { rng } from './random.ts';
import type { DataProfileName } from './sim-data.ts';
import { makeSpecs, type DeviceSpec } from './specs.ts';

export interface FleetOptions {
  /** The broker devices connect to, e.g. mqtt://127.0.0.1:1883. */
  url: string;
  /** How many devices to make from the seed (ignored when `specs` is given). */
  devices?: number;
  specs?: DeviceSpec[];
  seed?: number;
  prefix?: string;
  heartbeatS?: number;
  credential?: Credential;
  /** Connections opened per second while starting (a ramp, not a thundering herd). 0 = all at once. */
  rampPerSecond?: number;
  /** At most this many devices connecting at once while starting: the ramp slows down to what the server takes. */
  maxConnecting?: number;
  rebootDelayMs?: number;
  workMs?: number;
  stepMs?: number;
  /** Print head time per line (default 20 ms). */
  printLineMs?: number;
  /** Paper running out now and then by itself (default true). */
  randomFaults?: boolean;
  /** Each SIM's usage profile (default: drawn per device from its own seed); a function sets it per device. */
  dataProfile?: DataProfileName | ((spec: DeviceSpec, index: number) => DataProfileName | undefined);
  /** Simulated hours of data use per real hour (default 1); a function sets it per device. */
  dataRateScale?: number | ((spec: DeviceSpec, index: number) => number | undefined);
  /** Out of data, a device tries the network again this often (default 60 s). */
  dataRetryS?: number;
  /** Firmware upgrades: download speed and failure rates (one object for the fleet: change it while it runs). */
  upgrade?: UpgradeSimOptions;
  /** Connect on creation (default) or leave the devices off until start() / powerOn(). */
  start?: boolean;
  /** Apps and models (issue 15): download speed, failure rates (bad checksum, not enough storage), free storage. */
  software?: DeviceOptions['software'];
  /** How devices move (issue 16): shares driving routes / wandering off, GPS jitter. */
  movement?: DeviceOptions['movement'];
  /** Report the location every this many seconds (default: every 10th heartbeat when it changed). */
  locationEveryS?: number;
  log?: (line: string) => void;
}

export interface FleetStats {
  devices: number;
  online: number;
  powered: number;
  /** Devices offline because their SIM ran out of data. */
  noData: number;
  commandsReceived: number;
  commandsExecuted: number;
  printsReceived: number;
  printed: number;
  /** Messages the devices published (QoS 1, acknowledged). */
  sent: number;
}

export interface Fleet {
  readonly devices: VirtualDevice[];
  readonly specs: DeviceSpec[];
  get(sn: string): VirtualDevice;
  /** Powers every device on (with the ramp); resolves when all have said hello. */
  start(): Promise<void>;
  powerOn(sn: string): Promise<void>;
  stats(): FleetStats;
  /** Clean stop of every device. */
  stop(): Promise<void>;
}

/**
 * A fleet of virtual devices (DESIGN §6), for the command line, the demo, the benchmark and tests:
 * `const fleet = await createFleet({ url, devices: 3 })`, then `fleet.get(sn).runOutOfPaper()`,
 * `fleet.get(sn).executed`, `fleet.powerOn(sn)` after a shutdown.
 */
export async function createFleet(opts: FleetOptions): Promise<Fleet> {
  const specs = opts.specs ?? makeSpecs(opts.devices ?? 10, { seed: opts.seed, prefix: opts.prefix });
  const seed = opts.seed ?? 1;
  const devices = specs.map(
    (spec, i) =>
      new VirtualDevice(spec, {
        url: opts.url,
        heartbeatS: opts.heartbeatS ?? 30,
        credential: opts.credential ?? 'timed',
        rng: rng(seed * 100_003 + i),
        rebootDelayMs: opts.rebootDelayMs,
        workMs: opts.workMs,
        stepMs: opts.stepMs,
        printLineMs: opts.printLineMs,
        randomFaults: opts.randomFaults,
        dataProfile: typeof opts.dataProfile === 'function' ? opts.dataProfile(spec, i) : opts.dataProfile,
        dataRateScale: typeof opts.dataRateScale === 'function' ? opts.dataRateScale(spec, i) : opts.dataRateScale,
        dataRetryS: opts.dataRetryS,
        upgrade: opts.upgrade,
        software: opts.software,
        movement: opts.movement,
        locationEveryS: opts.locationEveryS,
        // spread reconnections after a broker restart over a few seconds
        reconnectMs: 1000 + ((i * 7919) % 4000),
        log: opts.log,
      }),
  );
  const bySn = new Map(devices.map((d) => [d.sn, d]));
  const get = (sn: string) => {
    const d = bySn.get(sn);
    if (!d) throw new Error(`no simulated device ${sn}`);
    return d;
  };

  const fleet: Fleet = {
    devices,
    specs,
    get,
    async start() {
      const ramp = opts.rampPerSecond ?? 0;
      // counted from each device's own turn in the ramp
      const timeout = 60_000;
      // handled at once: a device still connecting when the ramp ends must not become an unhandled rejection
      const started: Promise<boolean>[] = [];
      const maxConnecting = opts.maxConnecting ?? 200;
      let connecting = 0;
      for (let i = 0; i < devices.length; i++) {
        while (connecting >= maxConnecting) await new Promise((r) => setTimeout(r, 20));
        connecting++;
        started.push(
          devices[i].powerOn(timeout).then(
            () => (connecting--, true),
            () => (connecting--, false),
          ),
        );
        if (ramp > 0 && i % Math.max(1, Math.round(ramp / 10)) === 0) await new Promise((r) => setTimeout(r, 100));
      }
      const missing = (await Promise.all(started)).filter((ok) => !ok).length;
      if (missing) throw new Error(`${missing} of ${devices.length} devices did not come online (they keep trying)`);
    },
    powerOn: (sn) => get(sn).powerOn(),
    stats() {
      return {
        devices: devices.length,
        online: devices.filter((d) => d.online).length,
        powered: devices.filter((d) => d.powered).length,
        noData: devices.filter((d) => d.noData).length,
        commandsReceived: devices.reduce((a, d) => a + d.received.length, 0),
        commandsExecuted: devices.reduce((a, d) => a + d.executed.length, 0),
        printsReceived: devices.reduce((a, d) => a + d.printsReceived.length, 0),
        printed: devices.reduce((a, d) => a + d.printed.length, 0),
        sent: devices.reduce((a, d) => a + d.sent, 0),
      };
    },
    async stop() {
      await Promise.all(devices.map((d) => (d.online ? d.stop() : Promise.resolve(d.kill()))));
    },
  };
  if (opts.start !== false) await fleet.start();
  return fleet;
}
