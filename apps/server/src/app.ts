import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { envelopeSchema, publicKeyResult, UPLOAD_MAX_BYTES } from '@cpc/contracts';
import { OPEN_API_PREFIX } from '@cpc/contracts/open-api';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import { clientErrorHandler, frameworkErrors, registerErrorHandling, ok } from './plugins/errors.ts';
import { registerAuth } from './plugins/auth.ts';
import { registerApiDocs } from './plugins/api-docs.ts';
import { rateLimits } from './plugins/rate-limit.ts';
import { securityHeaders } from './plugins/security-headers.ts';
import { payloadCrypto } from './plugins/payload-crypto.ts';
import { LiveEvents } from './plugins/live-events.ts';
import { EventTickets, liveEventRoutes } from './plugins/live-stream.ts';
import { mqttGateway } from './plugins/mqtt/gateway.ts';
import { DeviceLink } from './plugins/mqtt/device-link.ts';
import { DeviceBus } from './plugins/mqtt/device-bus.ts';
import { BROKER_HOOK_PREFIX, brokerHookRoutes } from './plugins/mqtt/auth-hook.ts';
import { JobQueue, jobQueue } from './plugins/job-queue.ts';
import type { Core } from './plugins/core.ts';
import { AccessTokens } from './lib/tokens.ts';
import { ensureSecret } from './lib/secrets.ts';
import { publicOrigin } from './lib/public-origin.ts';
import { ObjectStorage, storageDriver } from './lib/storage.ts';
import { ClusterLocks } from './lib/cluster-locks.ts';
import { logHooks, logSerializers } from './lib/log-redact.ts';
import { MODULES } from './modules/index.ts';

export const API_PREFIX = '/apiAdmin';

/** Routes that carry no encrypted payload: "login RSA is off" (SPEC §7), uploads, files and the key itself. */
const CRYPTO_EXEMPT =
  /^\/(pay\/|apiAdmin\/(publicKey|refreshToken|user\/v1\/login|user\/login|upload|objects\/|device-files\/|device-media\/|docs))/;

declare module 'fastify' {
  interface FastifyInstance {
    storage: ObjectStorage;
    /** What the device gateway hears from devices, told to the modules (tests publish on it too). */
    deviceBus: DeviceBus;
  }
}

/** The origin of every absolute URL this server makes (devices, cashier, redirects, mail): see publicOrigin. */
export function deviceOrigin(app: FastifyInstance, config: Config): string {
  return publicOrigin(config, app.server.address());
}

/** `logStream`: where the log lines go instead of stdout (tests read them). */
export async function buildApp(
  config: Config,
  db: Db,
  opts: { logStream?: NodeJS.WritableStream } = {},
): Promise<FastifyInstance> {
  const app = createFastify(config, opts.logStream);
  // the locks of the cluster-once periodic jobs (docs/cluster-state.md): one PostgreSQL session of this node's own
  const clusterLocks = new ClusterLocks(config.DATABASE_URL, app.log.child({ module: 'cluster-locks' }));
  app.decorate('clusterLocks', clusterLocks);
  app.addHook('onClose', () => clusterLocks.close());
  if (config.OPEN_TRUSTED_PROXIES.length)
    app.log.warn('OPEN_TRUSTED_PROXIES is deprecated: it is merged into TRUSTED_PROXIES, which the whole server uses');

  const core = await buildCore(app, config, db);
  const dist = config.WEB_DIST ?? path.resolve(import.meta.dirname, '../../web/dist');
  await app.register(securityHeaders, {
    webDist: dist,
    mapTileUrl: config.MAP_TILE_URL,
    storageOrigin: core.storage.driver.origin ?? undefined,
  });
  await app.register(rateLimits, { db, notFound: config.RATE_LIMIT_NOT_FOUND });
  await app.register(cookie);
  await app.register(multipart, { limits: { fileSize: UPLOAD_MAX_BYTES, files: 1 } });
  await registerApiDocs(app, API_PREFIX, { access: config.API_DOCS, db, tokens: core.tokens });
  await app.register(jobQueue, { queue: core.queue });

  // the modules register themselves (modules/index.ts): services, upkeep, what they hear from devices
  for (const m of MODULES) await app.register(m.plugin);
  await app.register(mqttGateway, { db, config, events: core.events, link: core.link, bus: core.bus });
  await registerRoutes(app, core);
  await serveConsole(app, dist);
  return app;
}

/** The Fastify instance: its logger (secrets redacted), trusted proxies, limits, zod, the error envelope. */
function createFastify(config: Config, logStream?: NodeJS.WritableStream) {
  const app = Fastify({
    logger:
      config.LOG_LEVEL === 'silent'
        ? false
        : {
            level: config.LOG_LEVEL,
            // Secrets never reach the logs: credential headers, and secret query parameters (the live-event
            // ticket, signed links' sig, sign-in codes…) in request URLs, messages and error texts
            redact: [
              'req.headers.authorization',
              'req.headers.cookie',
              'req.headers["x-payload-key"]',
              'res.headers["set-cookie"]',
            ],
            serializers: logSerializers,
            hooks: logHooks,
            ...(logStream ? { stream: logStream } : {}),
          },
    // X-Forwarded-For is believed only from the configured proxies: `req.ip` is the right-most address in it that
    // is not one of them (the TCP peer when there are none), for every route, the throttles and the logs
    trustProxy: config.TRUSTED_PROXIES.length ? config.TRUSTED_PROXIES : false,
    bodyLimit: 1024 * 1024,
    ajv: { customOptions: { removeAdditional: false } },
    // what Node's parser refuses (a URL or header over its 16 KB, a garbled request line) and what fails before
    // routing (a URL the router cannot decode) answer the envelope too
    clientErrorHandler,
    frameworkErrors: frameworkErrors as FastifyServerOptions['frameworkErrors'],
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  return app;
}

/** What every module may be given (plugins/core.ts), decorated as `app.core`. */
async function buildCore(app: FastifyInstance, config: Config, db: Db): Promise<Core> {
  const [jwtSecret, storageSecret] = await Promise.all([
    ensureSecret(db, 'jwt_secret'),
    ensureSecret(db, 'storage_secret'),
  ]);
  const tokens = new AccessTokens(jwtSecret, config.ACCESS_TOKEN_TTL);
  const objectsDir = path.join(config.dataDir, 'objects');
  const storage = new ObjectStorage(objectsDir, storageSecret, await storageDriver(config.STORAGE_URL, objectsDir));
  // a bucket the node cannot reach is told at start (the node still starts: S3 may come back)
  storage.driver.check?.().catch((e: Error) => app.log.error(`STORAGE_URL: ${e.message}`));
  // Live events fan out through PostgreSQL, so the LISTEN connection needs the database's URL.
  const events = new LiveEvents(db, config.DATABASE_URL, app.log.child({ module: 'live-events' }));
  app.addHook('onReady', () => events.start());
  app.addHook('onClose', () => events.stop());
  // the broker connection, built first: the services that send to devices get it, the gateway starts it
  const link = new DeviceLink(db, config, app.log.child({ module: 'mqtt' }));
  // what devices say reaches the modules on the device bus: the gateway publishes, the modules subscribe
  const bus = new DeviceBus();
  // durable jobs (webhook deliveries) on pg-boss
  const queue = new JobQueue({
    databaseUrl: config.DATABASE_URL,
    pollMs: config.JOB_QUEUE_POLL_MS,
    log: app.log.child({ module: 'job-queue' }),
  });
  const core: Core = { config, db, storage, events, link, bus, queue, tokens, origin: () => deviceOrigin(app, config) };
  app.decorate('core', core);
  app.decorate('storage', storage);
  app.decorate('deviceBus', bus);
  return core;
}

/**
 * The routes, after the payload crypto (whose hooks they need): the broker's hook, every module's root routes,
 * then the console API behind the sign-in and permission checks.
 */
async function registerRoutes(app: FastifyInstance, { config, db, events, link, tokens }: Core): Promise<void> {
  const isOpen = (url: string) => url.startsWith(`${OPEN_API_PREFIX}/`);
  const isBrokerHook = (url: string) => url.startsWith(`${BROKER_HOOK_PREFIX}/`);
  await app.register(payloadCrypto, {
    scheme: config.PAYLOAD_CRYPTO,
    keyDir: path.join(config.dataDir, 'keys'),
    db, // replays refused on every node (payload_replays)
    exempt: (url: string) => CRYPTO_EXEMPT.test(url) || isOpen(url) || isBrokerHook(url),
  });
  await app.register(brokerHookRoutes, { prefix: BROKER_HOOK_PREFIX, config, link });
  for (const m of MODULES) if (m.root) await app.register(m.root);

  const eventTickets = new EventTickets(await ensureSecret(db, 'events_ticket_secret'));
  await app.register(
    async (api) => {
      registerAuth(api, db, tokens);
      for (const m of MODULES) if (m.api) await api.register(m.api);
      await api.register(liveEventRoutes, { db, events, tickets: eventTickets });
      api.get(
        '/publicKey',
        {
          config: { auth: false },
          schema: {
            tags: ['account'],
            summary: 'The payload-encryption public key (empty when off)',
            response: { 200: envelopeSchema(publicKeyResult) },
          },
        },
        async () =>
          ok({ publicKey: app.payloadCrypto.publicKeyPem, mockServer: false, scheme: app.payloadCrypto.scheme }),
      );
    },
    { prefix: API_PREFIX },
  );
}

/** The built console, when there is one. */
async function serveConsole(app: FastifyInstance, dist: string): Promise<void> {
  if (!fs.existsSync(path.join(dist, 'index.html'))) return;
  // preCompressed: the web build writes .br / .gz beside its scripts and styles (apps/web/vite.config.ts).
  // Cache headers are set here alone (send's maxAge would overwrite them): index.html is revalidated on every
  // visit, the content-hashed assets never change under their name.
  await app.register(fastifyStatic, {
    root: dist,
    wildcard: false,
    preCompressed: true,
    cacheControl: false,
    setHeaders: (res, file) => {
      if (file.endsWith('index.html')) {
        res.setHeader('cache-control', 'no-cache');
        return;
      }
      res.setHeader('vary', 'accept-encoding');
      res.setHeader(
        'cache-control',
        /[\\/]assets[\\/]/.test(file) ? 'public, max-age=31536000, immutable' : 'public, max-age=3600',
      );
    },
  });
}
