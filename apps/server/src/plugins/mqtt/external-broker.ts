import os from 'node:os';
import { randomBytes } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import { UP_FILTER } from '@cpc/contracts/device-protocol';
import type { Transport, TransportHandlers } from './transport.ts';

export interface ExternalOptions {
  url: string;
  sharedGroup: string;
  /** Listen to the answers of Mosquitto's dynamic-security plugin (MQTT_DYNSEC=on), for control(). */
  dynsec?: boolean;
  onError?(err: Error): void;
}

/** One command to Mosquitto's dynamic-security plugin (`createClient`, `listClients`, …) and its answer. */
export type DynsecCommand = { command: string } & Record<string, unknown>;
export interface DynsecResponse {
  command: string;
  error?: string;
  data?: Record<string, unknown>;
  correlationData?: string;
}

export const DYNSEC_TOPIC = '$CONTROL/dynamic-security/v1';
const DYNSEC_RESPONSE = `${DYNSEC_TOPIC}/response`;
const CONTROL_TIMEOUT_MS = 10_000;

/**
 * The server as a client of an external broker (Mosquitto, EMQX: DESIGN §2 "at scale"). Every node subscribes
 * with the same shared subscription, so the broker hands each device message to exactly one node. Device
 * authentication and topic rules are the broker's (see docs/device-protocol.md).
 */
export class ExternalBroker implements Transport {
  readonly kind = 'external' as const;
  private client: MqttClient | undefined;
  /** Control calls awaiting their answers, by the correlation prefix of their commands. */
  private pending = new Map<
    string,
    { resolve(r: DynsecResponse[]): void; responses: DynsecResponse[]; expected: number }
  >();
  private callSeq = 0;
  private readonly callPrefix = randomBytes(4).toString('hex');

  constructor(private opts: ExternalOptions) {}

  get deviceUrl(): string {
    const u = new URL(this.opts.url);
    return `${u.protocol}//${u.host}`;
  }

  async start(handlers: TransportHandlers): Promise<void> {
    const filter = `$share/${this.opts.sharedGroup}/${UP_FILTER}`;
    const filters = this.opts.dynsec ? [filter, DYNSEC_RESPONSE] : [filter];
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
      client.subscribe(filters, { qos: 1 }, (err) => err && this.opts.onError?.(err));
    });
    client.on('message', (topic, payload) =>
      topic === DYNSEC_RESPONSE ? this.onControlAnswer(payload) : handlers.message(topic, payload),
    );
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
    const granted = await client.subscribeAsync(filters, { qos: 1 });
    if (this.opts.dynsec && granted.some((g) => g.qos > 2))
      throw new Error(
        `MQTT_DYNSEC: the broker refused the server's subscription to ${DYNSEC_RESPONSE}: give its role subscribePattern and publishClientReceive on $CONTROL/dynamic-security/#`,
      );
  }

  /**
   * Sends commands to Mosquitto's dynamic-security plugin and resolves with their answers, in order. The plugin
   * answers every subscriber, so each command carries a correlation id of this node and this call.
   */
  control(commands: DynsecCommand[]): Promise<DynsecResponse[]> {
    const client = this.client;
    if (!client) return Promise.reject(new Error('broker not started'));
    if (!commands.length) return Promise.resolve([]);
    const key = `${this.callPrefix}.${++this.callSeq}`;
    return new Promise<DynsecResponse[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(key);
        reject(
          new Error(
            `the broker's dynamic-security plugin did not answer within ${CONTROL_TIMEOUT_MS / 1000} s (is it loaded, and may the server's user publish to ${DYNSEC_TOPIC}?)`,
          ),
        );
      }, CONTROL_TIMEOUT_MS);
      this.pending.set(key, {
        responses: [],
        expected: commands.length,
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
      });
      const payload = JSON.stringify({ commands: commands.map((c, i) => ({ ...c, correlationData: `${key}.${i}` })) });
      client.publishAsync(DYNSEC_TOPIC, payload, { qos: 1 }).catch((err) => {
        clearTimeout(timer);
        this.pending.delete(key);
        reject(err);
      });
    });
  }

  private onControlAnswer(payload: Buffer): void {
    let responses: DynsecResponse[];
    try {
      responses = (JSON.parse(payload.toString()) as { responses?: DynsecResponse[] }).responses ?? [];
    } catch {
      return;
    }
    for (const r of responses) {
      const at = r.correlationData?.lastIndexOf('.') ?? -1;
      const call = at > 0 ? this.pending.get(r.correlationData!.slice(0, at)) : undefined;
      if (!call) continue;
      call.responses[Number(r.correlationData!.slice(at + 1))] = r;
      if (call.responses.filter(Boolean).length === call.expected) {
        this.pending.delete(r.correlationData!.slice(0, at));
        call.resolve(call.responses);
      }
    }
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
