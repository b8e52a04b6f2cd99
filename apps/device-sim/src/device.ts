import { EventEmitter, once } from 'node:events';
import { randomBytes } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import {
  commandMsg,
  configMsg,
  deviceCredential,
  downFilter,
  parseTopic,
  printMsg,
  staticDeviceCredential,
  upTopic,
  type CommandMsg,
  type PrintMsg,
  type UpKind,
} from '@cpc/contracts/device-protocol';
import { paperGeometry, parseMarkup } from '@cpc/contracts/print-markup';
import { renderLines } from '@cpc/contracts/print-render';
import { renderEscPos } from './escpos.ts';
import { fetchFile } from './files.ts';
import { DeviceSoftware, type SoftwareOptions } from './apps.ts';
import { between, chance, intBetween, type Rng } from './random.ts';
import { SimCard, dataRng, type DataProfileName } from './sim-data.ts';
import type { DeviceSpec } from './specs.ts';
import { runUpgrade, type UpgradeHost, type UpgradeSimOptions } from './upgrade.ts';
import { Movement, movementRng, type MovementOptions } from './movement.ts';

export type Paper = 'ok' | 'out' | 'cover-open' | 'overheat';
export type Credential = 'timed' | 'static';

export interface DeviceOptions {
  url: string;
  heartbeatS: number;
  /** `timed` for the embedded broker (clock window), `static` for a broker with a password file. */
  credential: Credential;
  rng: Rng;
  /** How long a reboot keeps the device offline. */
  rebootDelayMs?: number;
  /** Delay before a lost connection is tried again (jittered by the fleet so devices do not return at once). */
  reconnectMs?: number;
  /** How long a task of a long kind (install, upgrade) takes. */
  workMs?: number;
  /** The pause between a reboot's progress and its result. */
  stepMs?: number;
  /** How long the print head takes per line (default 20 ms). */
  printLineMs?: number;
  /** Paper width of the printer (default 58 mm: 32 columns). */
  paperWidthMm?: number;
  /** Paper running out now and then by itself (default true; tests and benchmarks turn it off). */
  randomFaults?: boolean;
  /** The SIM's usage profile (default: drawn from the device's own seed, 15 % heavy, 60 % normal, 25 % idle). */
  dataProfile?: DataProfileName;
  /** Simulated hours of data use per real hour (default 1; the demo and tests make usage fast with it). */
  dataRateScale?: number;
  /** Out of data, the modem tries the network again this often (default 60 s). */
  dataRetryS?: number;
  /** Firmware upgrades (issue 15): download speed and failure rates, shared by a fleet (changeable while it runs). */
  upgrade?: UpgradeSimOptions;
  /** Apps and models (issue 15): download speed, failure rates, free storage. */
  software?: Omit<SoftwareOptions, 'rng'>;
  /** How devices move (issue 16): shares driving routes and wandering off, GPS jitter (see movement.ts). */
  movement?: MovementOptions;
  /**
   * Report the location every this many seconds (tests and the fence demo); default: every 10th heartbeat
   * (5 minutes at 30 s), when the fix changed.
   */
  locationEveryS?: number;
  log?: (line: string) => void;
}

/** A job the printer finished: its id, what it printed (one copy, as text lines) and how many copies. */
export interface PrintedJob {
  id: string;
  lines: string[];
  copies: number;
  /** Which delivery of the job was printed. */
  attempt: number;
  at: number;
}

/** What the printer did with a job id: kept so that a repeat of the id is answered, never printed again. */
type PrintOutcome = { state: 'queued' | 'printing' } | { state: 'done'; ok: boolean; error?: string };
/** What the device did with a command id: a repeat is acknowledged again and, once done, its result reported again. */
type CommandOutcome =
  { state: 'running' } | { state: 'done'; ok: boolean; error?: string } | { state: 'refused'; error: string };

export interface ExecutedCommand {
  id: string;
  type: string;
  at: number;
}

/**
 * `probing`: connected with its SIM out of data, hello sent, waiting for the platform's answer (`config.sim`)
 * to know whether a top-up gave it room again; it does no work meanwhile.
 */
type Phase = 'off' | 'connecting' | 'probing' | 'online' | 'leaving';

const HANDLED_MEMORY = 1000;
/** Print job ids remembered (a printer's non-volatile job log). */
const PRINT_MEMORY = 20_000;
/** Usage since the last traffic report that is reported at once, without waiting for the 10th heartbeat. */
const TRAFFIC_STEP_MB = 1;
const PAPER_ERROR = { out: 'paper out', 'cover-open': 'cover open', overheat: 'overheat' } as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One virtual cloud printer speaking DESIGN §6: hello on every connection, heartbeats, status, location and
 * traffic reports; commands acknowledged, executed once (ids remembered) and reported. Events: `online` (hello
 * sent), `offline`, `command` (every command message, repeats included), `executed`.
 */
export class VirtualDevice extends EventEmitter implements UpgradeHost {
  readonly sn: string;
  phase: Phase = 'off';
  /** false after a shutdown or a kill, until powerOn(). */
  powered = false;
  paper: Paper = 'ok';
  battery: number;
  charging = false;
  signal: number;
  lat: number;
  lng: number;
  /** The SIM: usage profile, byte counters, the plan as the platform last told it. */
  readonly sim: SimCard;
  firmware: string;
  /** Every command message received, repeats included. */
  readonly received: CommandMsg[] = [];
  /** Messages this device has published and the broker acknowledged (QoS 1), for the benchmarks' rates. */
  sent = 0;
  /** Commands actually carried out, once per task id. */
  readonly executed: ExecutedCommand[] = [];
  /** When true the device takes commands in but never answers them (for time-out tests). */
  ignoreCommands = false;
  /** When true the device handles print jobs but its acks are lost on the way (for ack time-out and cancel-race tests). */
  dropAcks = false;
  /** When true the device keeps its connection but sends nothing (for missed-heartbeat tests). */
  silent = false;
  /** Results of this many next commands are lost on the way (tests of the result reported again on a repeat). */
  loseResults = 0;
  /** Every print message received, repeats included. */
  readonly printsReceived: PrintMsg[] = [];
  /** Jobs printed to the end, once per job id, in the order they came out. */
  readonly printed: PrintedJob[] = [];
  /** Jobs that failed on the printer (paper out mid-job, refused), with the reason reported. */
  readonly printFailures: Array<{ id: string; error: string }> = [];
  /** Uploads of requested files to cut off on purpose (each resumed after a HEAD), for resume tests. */
  readonly uploadInterruptions = { left: 0 };
  /** Upload speed of requested files, bytes per second (unlimited when absent). */
  uploadBytesPerSecond: number | undefined;
  /** Chunk size of requested files' uploads (default: what the request says, at most 8 MB). */
  uploadChunkBytes: number | undefined;
  /** When this device last started (its system log begins here). */
  bootedAt = Date.now();
  /** Lines left on the roll; the paper runs out when it reaches 0 (Infinity: never). */
  paperLines = Number.POSITIVE_INFINITY;
  private printQueue: PrintMsg[] = [];
  private printOutcomes = new Map<string, PrintOutcome>();
  private printerBusy = false;
  private handled = new Map<string, CommandOutcome>();
  private client: MqttClient | undefined;
  private conn = '';
  private timers: NodeJS.Timeout[] = [];
  private ticks = 0;
  /** Heartbeat intervals until a random fault (paper out, cover open, overheat) is seen to; Infinity: set by hand. */
  private paperOutTicks = 0;
  private lastReported = { paper: '', battery: -1, signal: -1, lat: 0, lng: 0 };
  private heartbeatS: number;
  /** The SIM ran out: offline for lack of data, trying again every `dataRetryS`. */
  noData = false;
  private dataRetry: NodeJS.Timeout | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  /** When the usage was last added up, and the counter at the last traffic report. */
  private usageAt = 0;
  private reportedMb = 0;

  constructor(
    readonly spec: DeviceSpec,
    private opts: DeviceOptions,
  ) {
    super();
    this.sn = spec.sn;
    const r = opts.rng;
    this.heartbeatS = opts.heartbeatS;
    this.battery = intBetween(r, 35, 100);
    this.signal = intBetween(r, 40, 95);
    this.lat = spec.city.lat + between(r, -0.01, 0.01);
    this.lng = spec.city.lng + between(r, -0.01, 0.01);
    this.movement = new Movement(spec.city, { lat: this.lat, lng: this.lng }, movementRng(spec.sn), opts.movement);
    const usedMb = Math.round(between(r, 0, 200) * 100) / 100;
    this.sim = new SimCard(dataRng(spec.sn, spec.iccid), {
      usedMb,
      profile: opts.dataProfile,
      rateScale: opts.dataRateScale,
    });
    this.reportedMb = this.sim.usedMb;
    this.firmware = spec.firmware;
    this.software = new DeviceSoftware({ rng: r, ...opts.software });
  }

  /** Its apps and AI models (issue 15), reported as `inventory` after each hello and on every change. */
  readonly software: DeviceSoftware;
  /** Where it goes (issue 16): stays put with GPS jitter, drives routes or wanders off. */
  readonly movement: Movement;

  /**
   * Puts the device at a place (the control's `move`; tests make it leave a fence with it): it stays there with
   * GPS jitter only, and reports the location at once when online.
   */
  async moveTo(lat: number, lng: number): Promise<void> {
    if (!Number.isFinite(lat) || !Number.isFinite(lng) || Math.abs(lat) > 90 || Math.abs(lng) > 180)
      throw new Error('move: lat must be -90..90 and lng -180..180');
    this.movement.moveTo(lat, lng);
    this.lat = lat;
    this.lng = lng;
    await this.reportLocation();
  }

  /** The location report, when online; `lastReported` keeps what was sent. */
  private reportLocation(): Promise<void> {
    if (this.phase !== 'online' || this.silent) return Promise.resolve();
    this.lastReported.lat = this.lat;
    this.lastReported.lng = this.lng;
    return this.publish('location', { ts: Date.now(), lat: round(this.lat), lng: round(this.lng) });
  }

  private publishInventory(): Promise<void> {
    return this.publish('inventory', { ts: Date.now(), ...this.software.inventory() });
  }

  /** MB the SIM used in its plan period. */
  get usedMb(): number {
    return this.sim.usedMb;
  }

  get online(): boolean {
    return this.phase === 'online';
  }

  /** Powers the device on and connects; resolves once its hello is out. */
  async powerOn(timeoutMs = 30_000): Promise<void> {
    if (this.powered && this.phase !== 'off') return this.waitOnline(timeoutMs);
    this.powered = true;
    this.connect();
    return this.waitOnline(timeoutMs);
  }

  async waitOnline(timeoutMs = 30_000): Promise<void> {
    if (this.phase === 'online') return;
    await once(this, 'online', { signal: AbortSignal.timeout(timeoutMs) });
  }

  /** Paper runs out now (and is reported); refillPaper() puts it back. */
  runOutOfPaper(): void {
    this.paper = 'out';
    this.paperOutTicks = Number.POSITIVE_INFINITY;
    this.reportStatus(true);
  }

  refillPaper(): void {
    this.paper = 'ok';
    this.paperOutTicks = 0;
    this.paperLines = Number.POSITIVE_INFINITY;
    this.reportStatus(true);
  }

  /** The cover is opened or the head overheats now (reported at once); it stays until clearFault(). */
  setFault(fault: 'cover-open' | 'overheat'): void {
    this.paper = fault;
    this.paperOutTicks = Number.POSITIVE_INFINITY;
    this.reportStatus(true);
  }

  /** The cover is closed or the head has cooled down; another fault (paper out) stays. One fault shows at a time. */
  clearFault(fault: 'cover-open' | 'overheat'): void {
    if (this.paper !== fault) return;
    this.paper = 'ok';
    this.paperOutTicks = 0;
    this.reportStatus(true);
  }

  /** A roll with this many lines left: printing runs out of paper after them, mid-job or mid-queue. */
  loadPaper(lines: number): void {
    this.paperLines = lines;
    if (this.paper !== 'ok' && lines > 0) this.refillPaper();
    this.paperLines = lines;
  }

  /** Resolves when every print job received so far has been printed or failed. */
  async printIdle(timeoutMs = 30_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (this.printerBusy || this.printQueue.length) {
      if (Date.now() > end) throw new Error(`${this.sn}: still printing after ${timeoutMs} ms`);
      await sleep(20);
    }
  }

  /** Power cut: the socket dies without a DISCONNECT, so the broker publishes the last will. */
  kill(): void {
    this.powered = false;
    this.clearDataTimers();
    const client = this.client;
    this.client = undefined;
    this.stopTimers();
    if (client) {
      client.options.reconnectPeriod = 0;
      client.stream?.destroy();
      client.end(true);
    }
    this.setPhase('off');
  }

  /** A clean stop: says offline, disconnects, stays off. */
  async stop(reason = 'stop'): Promise<void> {
    this.clearDataTimers();
    this.powered = false;
    await this.leave(reason);
  }

  /** Publishes raw bytes on one of its own topics (tests send malformed messages with this). */
  async publishRaw(kind: UpKind | string, payload: string | Buffer, topic?: string): Promise<void> {
    if (!this.client) throw new Error(`${this.sn} is not connected`);
    await this.client.publishAsync(topic ?? `cp/v1/${this.sn}/up/${kind}`, payload, { qos: 1 });
  }

  /** Subscribes to any filter (tests try filters outside the device's own topics); resolves with the granted QoS. */
  async trySubscribe(filter: string): Promise<number> {
    if (!this.client) throw new Error(`${this.sn} is not connected`);
    const granted = await this.client.subscribeAsync(filter, { qos: 1 }).catch(() => [{ qos: 128 }]);
    return granted[0]?.qos ?? 128;
  }

  /** Messages received on topics other than its own down topics (tests assert there are none). */
  readonly foreign: string[] = [];

  private credential(): string {
    return this.opts.credential === 'static'
      ? staticDeviceCredential(this.spec.secret, this.sn)
      : deviceCredential(this.spec.secret, this.sn);
  }

  private willPayload(): Buffer {
    return Buffer.from(JSON.stringify({ conn: this.conn, reason: 'lost' }));
  }

  private connect(): void {
    this.conn = randomBytes(6).toString('hex');
    this.setPhase('connecting');
    const client = mqtt.connect(this.opts.url, {
      clientId: this.sn,
      username: this.sn,
      password: this.credential(),
      protocolVersion: 4,
      clean: true,
      keepalive: 60,
      connectTimeout: 30_000,
      reconnectPeriod: this.opts.reconnectMs ?? 2000,
      will: { topic: upTopic(this.sn, 'offline'), payload: this.willPayload(), qos: 1, retain: false },
    });
    this.client = client;
    // every connection gets a fresh id (in its will and its hello) and a fresh timed credential
    client.on('reconnect', () => {
      this.conn = randomBytes(6).toString('hex');
      client.options.password = this.credential();
      if (client.options.will) client.options.will.payload = this.willPayload();
    });
    client.on('connect', () => void this.onConnect(client));
    client.on('close', () => {
      if (this.client !== client) return;
      this.stopTimers();
      if (this.phase === 'online' || this.phase === 'probing') this.setPhase('connecting');
    });
    client.on('message', (topic, payload) => this.onMessage(topic, payload));
    client.on('error', (err) => this.opts.log?.(`${this.sn}: ${err.message}`));
  }

  private async onConnect(client: MqttClient): Promise<void> {
    try {
      await client.subscribeAsync(downFilter(this.sn), { qos: 1 });
      if (this.client !== client) return;
      if (this.noData) {
        // out of data: only the platform's answer to the hello says whether a top-up gave room again
        this.setPhase('probing');
        await this.hello();
        clearTimeout(this.probeTimer);
        this.probeTimer = setTimeout(() => this.phase === 'probing' && void this.runOutOfData(), this.probeWaitMs());
        return;
      }
      await this.hello();
      this.setPhase('online');
      this.startTimers();
    } catch (e) {
      this.opts.log?.(`${this.sn}: hello failed: ${(e as Error).message}`);
    }
  }

  private async hello(): Promise<void> {
    await this.publish('hello', {
      ts: Date.now(),
      conn: this.conn,
      fw: this.firmware,
      model: this.spec.model,
      imei: this.spec.imei,
      iccid: this.spec.iccid,
      heartbeatS: this.heartbeatS,
      paper: this.paper,
      battery: this.battery,
      signal: this.signal,
      lat: round(this.lat),
      lng: round(this.lng),
      usedMb: this.usedMb,
      txBytes: this.sim.txBytes,
      rxBytes: this.sim.rxBytes,
    });
    this.reportedMb = this.usedMb;
    this.lastReported = { paper: this.paper, battery: this.battery, signal: this.signal, lat: this.lat, lng: this.lng };
    await this.publishInventory();
  }

  private publish(kind: UpKind, body: Record<string, unknown>): Promise<void> {
    const client = this.client;
    if (!client) return Promise.resolve();
    return client.publishAsync(upTopic(this.sn, kind), JSON.stringify(body), { qos: 1 }).then(
      () => {
        this.sent++;
      },
      (e) => this.opts.log?.(`${this.sn}: publish ${kind} failed: ${(e as Error).message}`),
    );
  }

  private startTimers(): void {
    this.stopTimers();
    // usage is counted from now: none while it was off
    this.usageAt = Date.now();
    const r = this.opts.rng;
    const period = this.heartbeatS * 1000;
    // a random phase, so a fleet's heartbeats are spread over the interval
    const first = setTimeout(
      () => {
        this.tick();
        const t = setInterval(() => this.tick(), period);
        this.timers.push(t);
      },
      Math.floor(r() * period),
    );
    this.timers.push(first);
    const every = this.opts.locationEveryS;
    if (every && every > 0) {
      const t = setInterval(() => {
        const fix = this.movement.step(every);
        this.lat = fix.lat;
        this.lng = fix.lng;
        void this.reportLocation();
      }, every * 1000);
      this.timers.push(t);
    }
  }

  private stopTimers(): void {
    this.timers.forEach((t) => clearTimeout(t));
    this.timers = [];
  }

  /** One heartbeat interval of life: the heartbeat, then whatever changed. */
  private tick(): void {
    if (this.phase !== 'online' || this.silent) return;
    const r = this.opts.rng;
    this.ticks++;
    void this.publish('heartbeat', { ts: Date.now() });
    // battery: drains slowly, charges when low, stops charging when full
    if (this.charging) this.battery = Math.min(100, this.battery + intBetween(r, 1, 2));
    else if (chance(r, 0.3)) this.battery = Math.max(0, this.battery - 1);
    if (this.battery <= 15) this.charging = true;
    if (this.battery >= 98) this.charging = false;
    if (chance(r, 0.3)) this.signal = Math.max(5, Math.min(100, this.signal + intBetween(r, -6, 6)));
    // now and then the paper runs out, the cover is left open or the head overheats; someone sees to it a few
    // intervals later (a fault set through the control stays until it is cleared there)
    if (this.paper === 'ok' && this.opts.randomFaults !== false) {
      const fault = randomFault(r);
      if (fault) {
        this.paper = fault;
        this.paperOutTicks = intBetween(r, 3, 10);
      }
    } else if (this.paper !== 'ok' && --this.paperOutTicks <= 0) {
      this.paper = 'ok';
    }
    // the draws of the old drift are kept, so the device's other random sequences (faults, data) stay as they were
    if (chance(r, 0.2)) {
      between(r, -0.002, 0.002);
      between(r, -0.002, 0.002);
    }
    if (!this.opts.locationEveryS) {
      const fix = this.movement.step(this.heartbeatS);
      this.lat = fix.lat;
      this.lng = fix.lng;
    }
    // data: the profile's rate for the time since the last tick, with jitter (one draw, as before)
    const now = Date.now();
    const jitter = between(r, 0.3, 1.7);
    this.sim.use(this.sim.usageMb(now - this.usageAt, jitter, now));
    this.usageAt = now;
    this.reportStatus(false);
    if (this.sim.exhausted(now)) {
      void this.runOutOfData();
      return;
    }
    if (this.ticks % 10 === 0) {
      if (!this.opts.locationEveryS && (this.lat !== this.lastReported.lat || this.lng !== this.lastReported.lng))
        void this.reportLocation();
      void this.reportTraffic();
    } else if (this.usedMb - this.reportedMb >= TRAFFIC_STEP_MB) {
      // fast usage is reported as it goes, so the console sees a SIM run low before it runs out
      void this.reportTraffic();
    }
  }

  private reportTraffic(): Promise<void> {
    this.reportedMb = this.usedMb;
    return this.publish('traffic', {
      ts: Date.now(),
      iccid: this.spec.iccid,
      usedMb: this.usedMb,
      txBytes: this.sim.txBytes,
      rxBytes: this.sim.rxBytes,
    });
  }

  /**
   * The SIM has no data left (plan used up or expired): the final counters, `offline` with reason `no-data`,
   * disconnect; then, like a modem whose carrier restores data after a top-up, a new try every `dataRetryS`.
   */
  private async runOutOfData(): Promise<void> {
    if (this.phase === 'leaving' || this.phase === 'off') return;
    const first = !this.noData;
    this.noData = true;
    clearTimeout(this.probeTimer);
    if (first) {
      await this.reportTraffic();
      this.opts.log?.(`${this.sn}: no data left on the SIM (${this.usedMb} of ${this.sim.plan.planMb} MB)`);
      this.emit('no-data');
    }
    await this.leave('no-data');
    this.scheduleDataRetry();
  }

  private scheduleDataRetry(): void {
    clearTimeout(this.dataRetry);
    this.dataRetry = setTimeout(
      () => {
        this.dataRetry = undefined;
        if (this.powered && this.noData && this.phase === 'off') this.connect();
      },
      (this.opts.dataRetryS ?? 60) * 1000,
    );
  }

  /** How long a try out of data waits for the platform's answer before giving up until the next try. */
  private probeWaitMs(): number {
    return Math.max(3000, Math.min(10_000, (this.opts.dataRetryS ?? 60) * 1000));
  }

  private clearDataTimers(): void {
    clearTimeout(this.dataRetry);
    clearTimeout(this.probeTimer);
    this.dataRetry = undefined;
    this.probeTimer = undefined;
  }

  /** The platform's word on the SIM (`config.sim`): taken as the plan at once; room again brings it back. */
  private onSimPlan(sim: { iccid: string; planMb: number; expiresAt: string | null }): void {
    if (sim.iccid !== this.spec.iccid) return;
    this.sim.setPlan(sim.planMb, sim.expiresAt);
    const out = this.sim.exhausted();
    if (this.phase === 'probing') {
      clearTimeout(this.probeTimer);
      if (out) {
        void this.runOutOfData();
        return;
      }
      this.noData = false;
      this.opts.log?.(`${this.sn}: data again (${this.usedMb} of ${sim.planMb || '∞'} MB)`);
      this.setPhase('online');
      this.startTimers();
      void this.reportTraffic();
      return;
    }
    if (out && this.phase === 'online') void this.runOutOfData();
  }

  /** Reports paper, battery and signal when one of them changed (or always when forced). */
  private reportStatus(force: boolean): void {
    const last = this.lastReported;
    if (!force && last.paper === this.paper && last.battery === this.battery && last.signal === this.signal) return;
    last.paper = this.paper;
    last.battery = this.battery;
    last.signal = this.signal;
    if (this.phase !== 'online') return;
    void this.publish('status', {
      ts: Date.now(),
      paper: this.paper,
      battery: this.battery,
      signal: this.signal,
      charging: this.charging,
    });
  }

  private onMessage(topic: string, payload: Buffer): void {
    const t = parseTopic(topic);
    if (!t || t.sn !== this.sn || t.dir !== 'down') {
      this.foreign.push(topic);
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(payload.toString());
    } catch {
      return;
    }
    if (t.kind === 'config') {
      const c = configMsg.safeParse(json);
      if (!c.success) return;
      if (c.data.heartbeatS && c.data.heartbeatS !== this.heartbeatS) {
        this.heartbeatS = c.data.heartbeatS;
        this.startTimers();
      }
      if (c.data.requestHello && this.phase === 'online') void this.hello();
      if (c.data.sim) this.onSimPlan(c.data.sim);
      return;
    }
    // out of data (or waiting to hear whether it has some again) nothing is done
    if (this.phase === 'probing') return;
    if (t.kind === 'command') {
      const c = commandMsg.safeParse(json);
      if (c.success) void this.onCommand(c.data);
    }
    if (t.kind === 'print') {
      const p = printMsg.safeParse(json);
      if (p.success) void this.onPrint(p.data);
    }
  }

  /**
   * A print job: acknowledged and queued once per id; a repeat is acknowledged again and, when the job is
   * finished, its result is reported again (the first may have been lost with the connection) — never printed
   * twice. The queue prints one job after the other, taking `printLineMs` per line, even while offline.
   */
  private async onPrint(m: PrintMsg): Promise<void> {
    this.sim.receive(m.content.length);
    this.printsReceived.push(m);
    this.emit('print', m);
    if (this.ignoreCommands) return;
    const known = this.printOutcomes.get(m.id);
    if (known) {
      if (!this.dropAcks) await this.publish('ack', { id: m.id, kind: 'print', ok: true });
      if (known.state === 'done')
        await this.publish('result', {
          id: m.id,
          kind: 'print',
          ok: known.ok,
          ...(known.error ? { error: known.error } : {}),
        });
      return;
    }
    this.rememberPrint(m.id, { state: 'queued' });
    if (Date.parse(m.expireAt) < Date.now()) {
      this.rememberPrint(m.id, { state: 'done', ok: false, error: 'expired before it arrived' });
      await this.publish('ack', { id: m.id, kind: 'print', ok: false, error: 'expired before it arrived' });
      return;
    }
    if (!this.dropAcks) await this.publish('ack', { id: m.id, kind: 'print', ok: true });
    this.printQueue.push(m);
    if (!this.printerBusy) void this.runPrinter();
  }

  private async runPrinter(): Promise<void> {
    this.printerBusy = true;
    try {
      for (let job = this.printQueue.shift(); job; job = this.printQueue.shift()) await this.printJob(job);
    } finally {
      this.printerBusy = false;
    }
  }

  private async printJob(m: PrintMsg): Promise<void> {
    const fail = async (error: string) => {
      this.rememberPrint(m.id, { state: 'done', ok: false, error });
      this.printFailures.push({ id: m.id, error });
      await this.publish('result', { id: m.id, kind: 'print', ok: false, error });
    };
    if (this.paper !== 'ok') return fail(PAPER_ERROR[this.paper]);
    let lines: string[];
    const { columns } = paperGeometry(this.opts.paperWidthMm ?? 58);
    try {
      if (m.format === 'escpos') lines = renderEscPos(Buffer.from(m.content, 'base64'), columns);
      else {
        // a terminal gets the markup and lays it out itself, by the same rules as the server's preview
        const parsed = parseMarkup(m.content);
        if (!parsed.ok) return fail(`unreadable markup: ${parsed.error.message}`);
        lines = renderLines(parsed.blocks, columns);
      }
    } catch {
      return fail('unreadable job');
    }
    this.rememberPrint(m.id, { state: 'printing' });
    await this.publish('progress', { id: m.id, kind: 'print', progress: 0 });
    const lineMs = this.opts.printLineMs ?? 20;
    for (let copy = 0; copy < m.copies; copy++) {
      for (let i = 0; i < lines.length; i++) {
        if (this.paper !== 'ok') return fail(PAPER_ERROR[this.paper]);
        if (lineMs > 0) await sleep(lineMs);
        if (Number.isFinite(this.paperLines) && --this.paperLines <= 0) {
          this.paperLines = 0;
          this.runOutOfPaper();
        }
      }
    }
    this.printed.push({ id: m.id, lines, copies: m.copies, attempt: m.attempt, at: Date.now() });
    this.rememberPrint(m.id, { state: 'done', ok: true });
    this.emit('printed', m);
    await this.publish('result', { id: m.id, kind: 'print', ok: true });
  }

  private rememberPrint(id: string, o: PrintOutcome): void {
    this.printOutcomes.delete(id);
    this.printOutcomes.set(id, o);
    if (this.printOutcomes.size > PRINT_MEMORY) this.printOutcomes.delete(this.printOutcomes.keys().next().value!);
  }

  private async onCommand(m: CommandMsg): Promise<void> {
    this.received.push(m);
    this.emit('command', m);
    if (this.ignoreCommands) return;
    // at-least-once delivery: a repeat is acknowledged again (the first ack may have been lost), never run again;
    // a finished one has its result reported again too (the first may have been lost with the connection)
    const known = this.handled.get(m.id);
    if (known) {
      if (known.state === 'refused') return this.publish('ack', { id: m.id, ok: false, error: known.error });
      await this.publish('ack', { id: m.id, ok: true });
      if (known.state === 'done')
        await this.publish('result', { id: m.id, ok: known.ok, ...(known.error ? { error: known.error } : {}) });
      return;
    }
    const supported = [
      'reboot',
      'shutdown',
      'install_app',
      'uninstall_app',
      'upgrade',
      'apply_profile',
      'fetch_file',
      'push_message',
      'deploy_model',
    ];
    const refusal =
      Date.parse(m.expireAt) < Date.now()
        ? 'expired before it arrived'
        : !supported.includes(m.type)
          ? `unsupported task type ${m.type}`
          : null;
    if (refusal) {
      this.remember(m.id, { state: 'refused', error: refusal });
      await this.publish('ack', { id: m.id, ok: false, error: refusal });
      return;
    }
    this.remember(m.id, { state: 'running' });
    await this.publish('ack', { id: m.id, ok: true });
    this.executed.push({ id: m.id, type: m.type, at: Date.now() });
    this.emit('executed', m);
    const work = this.opts.workMs ?? 2000;
    switch (m.type) {
      case 'reboot':
        await this.publish('progress', { id: m.id, progress: 50 });
        await sleep(this.opts.stepMs ?? 100);
        await this.finish(m.id);
        await this.leave('reboot');
        setTimeout(
          () => this.powered && this.phase === 'off' && !this.noData && this.connect(),
          this.opts.rebootDelayMs ?? 3000,
        );
        return;
      case 'shutdown':
        await this.finish(m.id);
        this.powered = false;
        await this.leave('shutdown');
        return;
      case 'fetch_file': {
        const source = { sn: this.spec.sn, model: this.spec.model, firmware: this.firmware, bootedAt: this.bootedAt };
        const outcome = await fetchFile({ ...source, printed: this.printed, device: this }, m, (p) =>
          this.publish('progress', { id: m.id, progress: p, stage: 'uploading' }),
        );
        await this.finish(m.id, outcome.ok, outcome.ok ? undefined : outcome.error);
        return;
      }
      case 'upgrade':
        await runUpgrade(this, m, this.opts.upgrade ?? {}, this.opts.rng);
        return;
      case 'install_app':
      case 'uninstall_app':
      case 'deploy_model': {
        const out = await this.software.run(m, {
          progress: (progress, stage) => this.publish('progress', { id: m.id, progress, stage }),
          inventory: () => this.publishInventory(),
        });
        await this.finish(m.id, out.ok, out.error);
        return;
      }
      case 'push_message':
        await this.finish(m.id);
        return;
      default:
        for (const p of [0, 25, 50, 75, 100]) {
          await this.publish('progress', { id: m.id, progress: p });
          await sleep(work / 5);
        }
        await this.finish(m.id);
    }
  }

  /** UpgradeHost (issue 15): an up message of a task. */
  publishUp(kind: 'progress' | 'result', body: Record<string, unknown>): Promise<void> {
    return this.publish(kind, body);
  }

  /** UpgradeHost: a task's outcome, so that a repeat of it is answered with it. */
  done(id: string, ok: boolean, error?: string): void {
    this.remember(id, { state: 'done', ok, ...(error ? { error } : {}) });
  }

  /** UpgradeHost: leaves for a reboot and comes back after the reboot delay. */
  async reboot(): Promise<void> {
    await this.leave('reboot');
    setTimeout(
      () => this.powered && this.phase === 'off' && !this.noData && this.connect(),
      this.opts.rebootDelayMs ?? 3000,
    );
  }

  /** A command done: remembered first, so that a repeat reports it again, then reported (unless lost on purpose). */
  private async finish(id: string, ok = true, error?: string): Promise<void> {
    this.remember(id, { state: 'done', ok, ...(error ? { error } : {}) });
    if (this.loseResults > 0) {
      this.loseResults--;
      return;
    }
    await this.publish('result', { id, ok, ...(error ? { error } : {}) });
  }

  private remember(id: string, outcome: CommandOutcome): void {
    this.handled.delete(id);
    this.handled.set(id, outcome);
    if (this.handled.size > HANDLED_MEMORY) this.handled.delete(this.handled.keys().next().value!);
  }

  /** A deliberate disconnect: `offline` first (the broker sends no will on a clean disconnect), then DISCONNECT. */
  private async leave(reason: string): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.setPhase('leaving');
    this.stopTimers();
    await this.publish('offline', { ts: Date.now(), conn: this.conn, reason });
    this.client = undefined;
    client.options.reconnectPeriod = 0;
    await client.endAsync().catch(() => {});
    this.setPhase('off');
  }

  private setPhase(p: Phase): void {
    const was = this.phase;
    this.phase = p;
    if (p === 'online' && was !== 'online') this.emit('online');
    if (was === 'online' && p !== 'online') this.emit('offline');
  }
}

/** Chances per heartbeat interval of each printer fault, for a printer without one (paper out is the common one). */
export const FAULT_CHANCE = { out: 0.003, 'cover-open': 0.001, overheat: 0.0005 } as const satisfies Record<
  Exclude<Paper, 'ok'>,
  number
>;

/** At most one fault per interval, drawn with one random number. */
export function randomFault(r: Rng): Exclude<Paper, 'ok'> | null {
  const x = r();
  let below = 0;
  for (const [fault, p] of Object.entries(FAULT_CHANCE) as Array<[Exclude<Paper, 'ok'>, number]>) {
    below += p;
    if (x < below) return fault;
  }
  return null;
}

const round = (x: number) => Math.round(x * 1e5) / 1e5;
