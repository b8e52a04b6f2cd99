import os from 'node:os';
import { randomBytes } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import { UP_FILTER } from '@cpc/contracts/device-protocol';
import type { Transport, TransportHandlers } from './transport.ts';

export interface ExternalOptions {
  url: string;
  sharedGroup: string;
  onError?(err: Error): void;
}

/**
 * The server as a client of an external broker (Mosquitto, EMQX: DESIGN §2 "at scale"). Every node subscribes
 * with the same shared subscription, so the broker hands each device message to exactly one node. Device
 * authentication and topic rules are the broker's (see docs/device-protocol.md).
 */
export class ExternalBroker implements Transport {
  readonly kind = 'external' as const;
  private client: MqttClient | undefined;

  constructor(private opts: ExternalOptions) {}

  get deviceUrl(): string {
    const u = new URL(this.opts.url);
    return `${u.protocol}//${u.host}`;
  }

  async start(handlers: TransportHandlers): Promise<void> {
    const filter = `$share/${this.opts.sharedGroup}/${UP_FILTER}`;
    const client = mqtt.connect(this.opts.url, {
      clientId: `cpc-server-${os.hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
      protocolVersion: 5,
      clean: true,
      reconnectPeriod: 1000,
      connectTimeout: 10_000,
    });
    this.client = client;
    // subscribe on every (re)connect: a clean session forgets subscriptions
    client.on('connect', () => {
      client.subscribe(filter, { qos: 1 }, (err) => err && this.opts.onError?.(err));
    });
    client.on('message', (topic, payload) => handlers.message(topic, payload));
    client.on('error', (err) => this.opts.onError?.(err));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        client.end(true);
        reject(new Error(`MQTT_URL: cannot connect to ${this.deviceUrl} within 10 s`));
      }, 10_000);
      client.once('connect', () => {
        clearTimeout(timer);
        resolve();
      });
      // a refused login will not get better by retrying
      client.once('error', (err) => {
        if (!/Not authorized|Bad user/i.test(err.message)) return;
        clearTimeout(timer);
        client.end(true);
        reject(new Error(`MQTT_URL: the broker refused the server's credentials (${err.message})`));
      });
    });
    // the subscription must be in place before the server says it is ready
    await client.subscribeAsync(filter, { qos: 1 });
  }

  async publish(topic: string, payload: Buffer): Promise<void> {
    if (!this.client) throw new Error('broker not started');
    await this.client.publishAsync(topic, payload, { qos: 1 });
  }

  connectedDevices(): number | null {
    return null;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) await client.endAsync();
  }
}
