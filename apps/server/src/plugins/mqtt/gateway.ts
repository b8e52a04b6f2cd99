import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { parseTopic, parseUp } from '@cpc/contracts/device-protocol';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { EventSink } from '../live-events.ts';
import type { DeviceBus } from './device-bus.ts';
import type { DeviceDirectory } from './device-directory.ts';
import type { DynsecProvisioner } from './dynsec.ts';
import type { DeviceLink, DownMessages } from './device-link.ts';
import type { ClusterLocks } from '../../lib/cluster-locks.ts';
import { Periodic } from '../../lib/periodic.ts';
import { Presence, type HelloRow } from './presence.ts';
import type { Transport } from './transport.ts';

export interface GatewayStats {
  /** Messages from devices, by kind. */
  received: Record<string, number>;
  /** Messages dropped: bad topic, bad JSON or fields, unknown device. */
  dropped: number;
  unknownDevice: number;
  /** `offline` messages and last wills ignored: not of the current connection, or the device was already offline. */
  staleOffline: number;
  authFailures: number;
  /** Messages sent to devices. */
  published: number;
  /** Devices connected to this node's broker (embedded only; null with an external broker). */
  connected: number | null;
}

/** A hello is asked of a device the database thinks offline, at most this often. */
const REQUEST_HELLO_EVERY_MS = 30_000;

/** How long a status or location report waits for others to share its commit (ms). */
const REPORT_WINDOW_MS = 20;

/**
 * The device gateway (DESIGN §6): takes every up message from the broker, validates it, turns presence and
 * telemetry into database state, and tells the modules the rest on the device bus (task and print results,
 * inventories, profiles, locations, events); sends commands down. Messages of one device are handled in order
 * on this node; nothing a device sends can crash it.
 */
export class DeviceGateway {
  readonly presence: Presence;
  private counters = { dropped: 0, unknownDevice: 0, staleOffline: 0, received: {} as Record<string, number> };
  private helloAsked = new Map<number, number>();
  private periodic: Periodic;
  /** The sweep under way (run by the timer or called), which stop() waits for before the database goes. */
  private sweeping: Promise<void> | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private db: Db,
    private config: Config,
    events: EventSink,
    private log: FastifyBaseLogger,
    /** The broker connection and per-device order, shared with the services that send to devices. */
    private link: DeviceLink,
    /** Where what devices say goes to the modules, and the modules' part of the sweep. */
    private bus: DeviceBus,
    /** Where the cluster-once jobs (the sweep, the dynamic-security sync) take their lock. */
    locks?: ClusterLocks,
  ) {
    this.periodic = new Periodic((err, job) => this.log.error({ err, job }, 'mqtt: periodic work failed'), {
      locks,
      scope: 'mqtt',
    });
    this.presence = new Presence(db, events, {
      heartbeatS: config.HEARTBEAT_S,
      telemetrySampleS: config.TELEMETRY_SAMPLE_S,
      // a fleet's reports share commits (a device's next message waits at most this much more after one)
      reportWindowMs: REPORT_WINDOW_MS,
      onRollupError: (err) => this.log.warn({ err }, 'mqtt: SIM usage roll-up failed'),
      bus,
    });
  }

  get transport(): Transport {
    return this.link.transport;
  }

  get directory(): DeviceDirectory {
    return this.link.directory;
  }

  /** Devices provisioned on the external broker's dynamic security (MQTT_DYNSEC=on). */
  get dynsec(): DynsecProvisioner | undefined {
    return this.link.dynsec;
  }

  /** See DeviceLink.checkDevice. */
  checkDevice(clientId: string, username: string, password: string): Promise<boolean> {
    return this.link.checkDevice(clientId, username, password);
  }

  /** Where devices connect. */
  get deviceUrl(): string {
    return this.transport.deviceUrl;
  }

  stats(): GatewayStats {
    const { dropped, unknownDevice, staleOffline, received } = this.counters;
    const { authFailures, published } = this.link.counters;
    return {
      received: { ...received },
      dropped,
      unknownDevice,
      staleOffline,
      authFailures,
      published,
      connected: this.transport.connectedDevices(),
    };
  }

  async start(): Promise<void> {
    await this.transport.start({
      message: (topic, payload) => this.onMessage(topic, payload),
      disconnect: (sn, conn) => this.inOrder(sn, () => this.onDisconnect(sn, conn)),
    });
    this.periodic.every(this.config.LAST_SEEN_FLUSH_MS, 'last-seen flush', () => this.flushSeen(), 'node');
    // the SIM usage roll-up of the traffic reports heard meanwhile, apart from presence (see Presence.flush)
    this.periodic.every(this.config.LAST_SEEN_FLUSH_MS, 'usage roll-up', () => this.presence.flushTraffic(), 'node');
    this.periodic.every(this.config.SWEEP_INTERVAL_MS, 'sweep', () => this.sweep(), 'cluster');
    if (this.dynsec) {
      const dynsec = this.dynsec;
      await dynsec.reconcile();
      await dynsec.sync();
      // devices registered since, by any node or tool, within a sweep interval
      this.periodic.every(this.config.SWEEP_INTERVAL_MS, 'dynamic-security sync', () => dynsec.sync(), 'cluster');
    }
    this.log.info({ url: this.deviceUrl, kind: this.transport.kind }, 'mqtt: device gateway ready');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    // the periodic work and a sweep already running finish before the broker and the database go
    await this.periodic.stop();
    await this.sweeping?.catch(() => {});
    await this.transport.close().catch((err) => this.log.warn({ err }, 'mqtt: close failed'));
    await this.link.settled();
    await this.directory.stop();
    await this.bus.settled();
    await this.presence.drain();
    await this.flushSeen().catch(() => {});
    await this.presence.flushTraffic();
  }

  /** Publishes a down message (QoS 1) to one device. */
  send<K extends keyof DownMessages>(sn: string, kind: K, msg: DownMessages[K]): Promise<void> {
    return this.link.send(sn, kind, msg);
  }

  /** Resolves when every message received so far (of one device, or of all) has been handled and written. */
  async settled(sn?: string): Promise<void> {
    await this.link.settled(sn);
    await this.bus.settled();
  }

  /** One presence and task sweep; run periodically, and by tests when they want it now. */
  async sweep(): Promise<void> {
    if (this.sweeping || this.stopped) return;
    this.sweeping = this.sweepOnce().finally(() => (this.sweeping = null));
    await this.sweeping;
  }

  private async sweepOnce(): Promise<void> {
    // this node's pending last-seen times first, so a device heard a moment ago is not taken for silent
    await this.flushSeen();
    await this.presence.sweep();
    await this.bus.sweep();
  }

  private flushSeen(): Promise<void> {
    // one flush after the other; a failed one is its caller's to report, and never stops the ones after it
    this.flushing = this.flushing
      .catch(() => {})
      .then(async () => {
        const offline = await this.presence.flush();
        // still talking but offline in the database (a sweep during a stall, a hello lost): ask for a hello
        const now = Date.now();
        for (const id of offline) {
          if ((this.helloAsked.get(id) ?? 0) > now - REQUEST_HELLO_EVERY_MS) continue;
          this.helloAsked.set(id, now);
          const row = await this.db.selectFrom('devices').select('sn').where('id', '=', id).executeTakeFirst();
          if (row) await this.send(row.sn, 'config', { requestHello: true, serverTime: now }).catch(() => {});
        }
      });
    return this.flushing;
  }

  private onMessage(topic: string, payload: Buffer): void {
    const t = parseTopic(topic);
    if (!t || t.dir !== 'up') {
      this.counters.dropped++;
      return;
    }
    this.inOrder(t.sn, () => this.handle(t.sn, t.kind, payload));
  }

  /** Messages of one device are handled one after the other; different devices in parallel. */
  private inOrder(sn: string, work: () => Promise<void>): void {
    this.link.inOrder(sn, work);
  }

  private async handle(sn: string, kind: string, payload: Buffer): Promise<void> {
    const parsed = parseUp(kind, payload);
    if (!parsed) {
      this.counters.dropped++;
      this.log.debug({ sn, kind }, 'mqtt: invalid message dropped');
      return;
    }
    const device = await this.directory.get(sn);
    if (!device) {
      this.counters.dropped++;
      this.counters.unknownDevice++;
      return;
    }
    this.counters.received[kind] = (this.counters.received[kind] ?? 0) + 1;
    const id = device.id;
    if (parsed.kind !== 'offline' && parsed.kind !== 'hello') this.presence.touch(id);
    switch (parsed.kind) {
      case 'hello': {
        // the hello says what follows: the SIM's plan, whether anything is left to send again
        const row = await this.presence.hello(id, parsed.msg);
        if (row) {
          this.helloAsked.delete(id);
          // before the resends: a device whose SIM had run out learns first whether it may work again
          if (parsed.msg.iccid && row.sim_known) await this.answerSim(sn, parsed.msg.iccid, row);
          await this.bus.emit('hello', id, { sn, tasksOpen: row.tasks_open, printsOpen: row.prints_open });
        }
        return;
      }
      case 'offline':
        // one that does not name the current connection is ignored (and counted): see Presence.offline
        if (!(await this.presence.offline(id, parsed.msg.conn, parsed.msg.reason))) this.counters.staleOffline++;
        return;
      case 'status':
        return this.presence.status(id, parsed.msg);
      case 'location':
        await this.presence.location(id, parsed.msg);
        return this.bus.emit('location', id, parsed.msg);
      case 'traffic':
        return this.presence.traffic(id, parsed.msg);
      // `kind` says whether a task or a print job is meant (print jobs answer with kind "print")
      case 'ack':
        return this.bus.emit(parsed.msg.kind === 'print' ? 'print.ack' : 'task.ack', id, parsed.msg);
      case 'progress':
        return this.bus.emit(parsed.msg.kind === 'print' ? 'print.progress' : 'task.progress', id, parsed.msg);
      case 'result':
        return this.bus.emit(parsed.msg.kind === 'print' ? 'print.result' : 'task.result', id, parsed.msg);
      case 'inventory':
        return this.bus.emit('inventory', id, parsed.msg);
      case 'profile':
        return this.bus.emit('profile', id, parsed.msg);
      case 'event':
        return this.bus.emit('event', id, parsed.msg);
      case 'heartbeat':
        return;
    }
  }

  /**
   * The answer to a hello that names a SIM: its plan as the platform knows it (`down/config` with `sim`), so the
   * device's counters agree at every connection and one that had run out of data knows whether it has room again.
   * Nothing for a SIM the platform does not know. The plan is the one the hello read.
   */
  private async answerSim(
    sn: string,
    iccid: string,
    sim: Pick<HelloRow, 'sim_plan_mb' | 'sim_expires_at'>,
  ): Promise<void> {
    const expiresAt = sim.sim_expires_at ? new Date(sim.sim_expires_at).toISOString() : null;
    await this.send(sn, 'config', { sim: { iccid, planMb: Number(sim.sim_plan_mb), expiresAt } }).catch((err) =>
      this.log.warn({ err, sn }, 'mqtt: the SIM plan answer failed'),
    );
  }

  private async onDisconnect(sn: string, conn: string): Promise<void> {
    const device = await this.directory.get(sn);
    if (device) await this.presence.offline(device.id, conn, 'disconnect');
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    gateway: DeviceGateway;
  }
}

/**
 * Registers the gateway: the embedded Aedes broker on MQTT_PORT, or a client of MQTT_URL. It starts when the
 * app is ready (so a port in use stops the start with its name) and stops when the app closes.
 */
export const mqttGateway = fp<{
  db: Db;
  config: Config;
  events: EventSink;
  link: DeviceLink;
  bus: DeviceBus;
}>(
  async (app: FastifyInstance, { db, config, events, link, bus }) => {
    const gateway = new DeviceGateway(
      db,
      config,
      events,
      app.log.child({ module: 'mqtt' }),
      link,
      bus,
      app.clusterLocks,
    );
    app.decorate('gateway', gateway);
    app.addHook('onReady', () => gateway.start());
    app.addHook('preClose', () => gateway.stop());
  },
  { name: 'mqtt-gateway' },
);
