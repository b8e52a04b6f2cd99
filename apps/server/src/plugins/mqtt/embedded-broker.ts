import net from 'node:net';
import { Aedes, type AuthenticateError, type Client, type PublishPacket } from 'aedes';
import {
  TOPIC_SN_RULE,
  UP_FILTER,
  helloMsg,
  mayPublish,
  maySubscribe,
  parseTopic,
} from '@cpc/contracts/device-protocol';
import type { Transport, TransportHandlers } from './transport.ts';

// The connection id a client announced in its hello, kept on the client object for its disconnect.
const CONN = Symbol('conn');
type DeviceClient = Client & { [CONN]?: string };

// Aedes' AuthErrorCode.BAD_USERNAME_OR_PASSWORD (a const enum, which isolated modules cannot import)
const BAD_CREDENTIALS = 4;

export interface EmbeddedOptions {
  port: number;
  host: string;
  /** Resolves whether `password` is a valid credential of device `sn`. */
  authenticate(sn: string, password: string): Promise<boolean>;
  onAuthFailure?(sn: string): void;
}

/**
 * Aedes inside the server process (DESIGN §2, the embedded default). Its hooks enforce the protocol's rules:
 * client id = user name = sn with a valid credential; publish only to `cp/v1/{own sn}/up/…` (anything else
 * disconnects the client); subscribe only under `cp/v1/{own sn}/down/` (anything else is refused).
 */
export class EmbeddedBroker implements Transport {
  readonly kind = 'embedded' as const;
  private aedes: Aedes | undefined;
  private server: net.Server | undefined;
  private port = 0;

  constructor(private opts: EmbeddedOptions) {}

  get deviceUrl(): string {
    const host = this.opts.host === '0.0.0.0' || this.opts.host === '::' ? '127.0.0.1' : this.opts.host;
    return `mqtt://${host}:${this.port}`;
  }

  async start(handlers: TransportHandlers): Promise<void> {
    const { authenticate, onAuthFailure } = this.opts;
    const aedes = await Aedes.createBroker({
      heartbeatInterval: 60_000,
      drainTimeout: 30_000,
      authenticate: (client, username, password, done) => {
        const sn = client.id;
        const refuse = () => {
          onAuthFailure?.(sn);
          const err = new Error('bad user name or password') as AuthenticateError;
          err.returnCode = BAD_CREDENTIALS;
          done(err, false);
        };
        if (!TOPIC_SN_RULE.test(sn) || username !== sn || !password) return refuse();
        authenticate(sn, password.toString('utf8')).then((ok) => (ok ? done(null, true) : refuse()), refuse);
      },
      authorizePublish: (client, packet, done) => {
        const t = parseTopic(packet.topic);
        // a client is null only for the stored will of a client that is gone: its topic was checked at connect
        if (!client) return done(t?.dir === 'up' && t.kind === 'offline' ? null : new Error('not allowed'));
        if (!t || !mayPublish(client.id, packet.topic))
          return done(new Error(`${client.id} may not publish to ${packet.topic}`));
        if (t.kind === 'hello') {
          try {
            const hello = helloMsg.safeParse(JSON.parse(packet.payload.toString()));
            if (hello.success) (client as DeviceClient)[CONN] = hello.data.conn;
          } catch {
            // an invalid hello is dropped and counted by the gateway
          }
        }
        done(null);
      },
      authorizeSubscribe: (client, sub, done) => {
        // null refuses this one subscription (granted 128) without dropping the connection
        done(null, maySubscribe(client.id, sub.topic) ? sub : null);
      },
    });
    this.aedes = aedes;
    await new Promise<void>((resolve) =>
      aedes.subscribe(
        UP_FILTER,
        (packet, cb) => {
          handlers.message(
            packet.topic,
            Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload),
          );
          cb();
        },
        resolve,
      ),
    );
    aedes.on('clientDisconnect', (client: DeviceClient) => {
      const conn = client[CONN];
      if (conn) handlers.disconnect?.(client.id, conn);
    });
    const server = net.createServer(aedes.handle);
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) =>
        reject(
          e.code === 'EADDRINUSE'
            ? new Error(`MQTT_PORT ${this.opts.port} is in use: choose another port (0 picks a free one)`)
            : e,
        ),
      );
      server.listen(this.opts.port, this.opts.host, () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
  }

  publish(topic: string, payload: Buffer): Promise<void> {
    const aedes = this.aedes;
    if (!aedes) return Promise.reject(new Error('broker not started'));
    const packet = { cmd: 'publish', topic, payload, qos: 1, retain: false, dup: false } as PublishPacket;
    return new Promise((resolve, reject) => aedes.publish(packet, (err) => (err ? reject(err) : resolve())));
  }

  connectedDevices(): number | null {
    return this.aedes?.connectedClients ?? 0;
  }

  async close(): Promise<void> {
    const { server, aedes } = this;
    this.server = undefined;
    this.aedes = undefined;
    // closing Aedes ends every client, which lets the listening socket close
    if (aedes) await new Promise<void>((resolve) => aedes.close(() => resolve()));
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
