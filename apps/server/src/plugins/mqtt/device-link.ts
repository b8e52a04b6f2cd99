import type { FastifyBaseLogger } from 'fastify';
import {
  TOPIC_SN_RULE,
  checkDeviceCredential,
  downTopic,
  type CommandMsg,
  type ConfigMsg,
  type PrintMsg,
} from '@cpc/contracts/device-protocol';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { DeviceDirectory } from './device-directory.ts';
import { DynsecProvisioner } from './dynsec.ts';
import { EmbeddedBroker } from './embedded-broker.ts';
import { ExternalBroker } from './external-broker.ts';
import type { Transport } from './transport.ts';

/** Each kind of down message the server sends, with its body. */
export interface DownMessages {
  command: CommandMsg;
  print: PrintMsg;
  config: ConfigMsg;
}

/**
 * This node's link to the devices: the broker connection (embedded Aedes on MQTT_PORT, or a client of MQTT_URL),
 * the device credentials it checks, and the order of work per device. It is built before the services that
 * send to devices (tasks, print jobs), which get it as their downlink; the gateway starts and stops it and
 * handles what comes up through it.
 */
export class DeviceLink {
  readonly transport: Transport;
  readonly directory: DeviceDirectory;
  /** Devices provisioned on the external broker's dynamic security (MQTT_DYNSEC=on). */
  readonly dynsec: DynsecProvisioner | undefined;
  /** Messages sent to devices, and connections refused by the embedded broker. */
  readonly counters = { published: 0, authFailures: 0 };
  private chains = new Map<string, Promise<void>>();

  constructor(
    db: Db,
    private config: Config,
    private log: FastifyBaseLogger,
  ) {
    this.directory = new DeviceDirectory(db);
    if (config.MQTT_URL) {
      const external = new ExternalBroker({
        url: config.MQTT_URL,
        sharedGroup: config.MQTT_SHARED_GROUP,
        dynsec: config.MQTT_DYNSEC === 'on',
        onError: (err) => log.warn({ err: err.message }, 'mqtt: external broker'),
      });
      this.transport = external;
      if (config.MQTT_DYNSEC === 'on') this.dynsec = new DynsecProvisioner(db, external);
    } else {
      this.transport = new EmbeddedBroker({
        port: config.MQTT_PORT,
        host: config.MQTT_HOST ?? config.HOST,
        authenticate: (sn, password) => this.checkDevice(sn, sn, password),
        onAuthFailure: () => this.counters.authFailures++,
      });
    }
  }

  /**
   * A device's connection: client id = user name = a registered sn, and its timed credential within
   * MQTT_AUTH_WINDOW_S of this clock (the embedded broker, and an external one through the HTTP hook).
   */
  async checkDevice(clientId: string, username: string, password: string): Promise<boolean> {
    // a user name that cannot be a serial number is not looked up at all
    if (clientId !== username || !password || !TOPIC_SN_RULE.test(username)) return false;
    const d = await this.directory.get(username);
    return (
      !!d && checkDeviceCredential(d.secret, username, password, Date.now() / 1000, this.config.MQTT_AUTH_WINDOW_S)
    );
  }

  /** Publishes a down message (QoS 1) to one device. */
  async send<K extends keyof DownMessages>(sn: string, kind: K, msg: DownMessages[K]): Promise<void> {
    await this.transport.publish(downTopic(sn, kind), Buffer.from(JSON.stringify(msg)));
    this.counters.published++;
  }

  command(sn: string, msg: CommandMsg): Promise<void> {
    return this.send(sn, 'command', msg);
  }

  print(sn: string, msg: PrintMsg): Promise<void> {
    return this.send(sn, 'print', msg);
  }

  /** Behind the device's messages being handled (a hello's resends): submission order holds on reconnect. */
  printAfterPending(sn: string, msg: PrintMsg): void {
    this.inOrder(sn, () => this.send(sn, 'print', msg).catch(() => {}));
  }

  /** Work for one device runs after its earlier work; different devices in parallel. */
  inOrder(sn: string, work: () => Promise<void>): void {
    const prev = this.chains.get(sn) ?? Promise.resolve();
    const next = prev
      .then(work)
      .catch((err) => this.log.error({ err, sn }, 'mqtt: message handling failed'))
      .finally(() => {
        if (this.chains.get(sn) === next) this.chains.delete(sn);
      });
    this.chains.set(sn, next);
  }

  /** Resolves when the work queued so far (of one device, or of all) has been done. */
  async settled(sn?: string): Promise<void> {
    if (sn) await this.chains.get(sn);
    else await Promise.allSettled([...this.chains.values()]);
  }
}
