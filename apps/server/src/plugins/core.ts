import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { ObjectStorage } from '../lib/storage.ts';
import type { AccessTokens } from '../lib/tokens.ts';
import type { JobQueue } from './job-queue.ts';
import type { LiveEvents } from './live-events.ts';
import type { DeviceBus } from './mqtt/device-bus.ts';
import type { DeviceLink } from './mqtt/device-link.ts';

/**
 * What every module may be given, built once by `buildApp` before the modules (docs/architecture.md): the
 * configuration, the database, object storage, the live-event channel, the link to the devices and the bus of
 * what they say, the durable job queue, the access tokens, and the public origin of the URLs the server makes.
 */
export interface Core {
  config: Config;
  db: Db;
  storage: ObjectStorage;
  events: LiveEvents;
  link: DeviceLink;
  bus: DeviceBus;
  queue: JobQueue;
  tokens: AccessTokens;
  /** The origin of every absolute URL this server makes (devices, cashier, redirects, mail): see publicOrigin. */
  origin(): string;
}

declare module 'fastify' {
  interface FastifyInstance {
    core: Core;
  }
}
