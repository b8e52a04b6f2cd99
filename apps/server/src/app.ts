import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { envelopeSchema, publicKeyResult, UPLOAD_MAX_BYTES } from '@cpc/contracts';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import { clientErrorHandler, frameworkErrors, registerErrorHandling, ok } from './plugins/errors.ts';
import { registerAuth } from './plugins/auth.ts';
import { registerApiDocs } from './plugins/api-docs.ts';
import { rateLimits } from './plugins/rate-limit.ts';
import { securityHeaders } from './plugins/security-headers.ts';
import { payloadCrypto } from './plugins/payload-crypto.ts';
import { AccessTokens } from './lib/tokens.ts';
import { ensureSecret } from './lib/secrets.ts';
import { publicOrigin } from './lib/public-origin.ts';
import { createCaptchaProvider } from './lib/captcha.ts';
import { systemRoutes } from './modules/system/index.ts';
import { subAccountRoutes, SubAccountService, userRoutes, UserService } from './modules/user/index.ts';
import { roleRoutes, RoleService } from './modules/role/index.ts';
import { authRoutes, AuthService, SocialLogin, socialCallbackRoute } from './modules/auth/index.ts';
import { identityRoutes, IdentityService } from './modules/identity/index.ts';
import { menuRoutes } from './modules/menu/index.ts';
import { noticeRoutes, noticeUpkeep } from './modules/notice/index.ts';
import { OcrPool, OcrService, aiLibraryRoutes, openOcrRoutes } from './modules/ai-library/index.ts';
import {
  describeMailTarget,
  inboxMail,
  InboxMailer,
  inboxRoutes,
  listenForDeviceFaults,
} from './modules/inbox/index.ts';
import { uploadRoutes } from './modules/upload/index.ts';
import { taskRoutes, TaskService } from './modules/task/index.ts';
import { deviceRoutes } from './modules/device/index.ts';
import { departmentRoutes, DepartmentService } from './modules/department/index.ts';
import { deviceModelRoutes } from './modules/device-model/index.ts';
import { deviceRegistryRoutes } from './modules/device-registry/index.ts';
import { dashboardRoutes } from './modules/dashboard/index.ts';
import { workbenchRoutes } from './modules/workbench/index.ts';
import { PrintContent, PrintService } from './modules/print/index.ts';
import { integrationRoutes, IntegrationService, WebhookSender, webhookUpkeep } from './modules/integration/index.ts';
import { openApiRoutes, openApiUpkeep, OpenAuth, RequestLog } from './modules/open-api/index.ts';
import { SystemLogService, systemLogRetention, systemLogRoutes } from './modules/system-log/index.ts';
import { flowRateRoutes, simUpkeep } from './modules/flow-rate/index.ts';
import { WorkOrderService, workOrderRoutes, workOrderUpkeep } from './modules/work-order/index.ts';
import { createSmsProvider } from './lib/sms.ts';
import { ObjectStorage, storageDriver } from './lib/storage.ts';
import { Periodic } from './lib/periodic.ts';
import { ClusterLocks } from './lib/cluster-locks.ts';
import {
  FileAcquisitionService,
  deviceUploadRoutes,
  fileAcquisitionRoutes,
  fileAcquisitionUpkeep,
} from './modules/file-acquisition/index.ts';
import {
  ChunkedUploads,
  chunkedUploadRoutes,
  deviceDownloadRoutes,
  deviceDownloadUrl,
  packageRoutes,
  packageUpkeep,
} from './modules/package/index.ts';
import { upgradeRoutes, UpgradeService, upgradeUpkeep } from './modules/upgrade/index.ts';
import { pushRoutes, PushService, pushUpkeep } from './modules/push/index.ts';
import { applicationRoutes, applicationUpkeep, ApplicationService } from './modules/application/index.ts';
import {
  profileMediaRoutes,
  profileMediaUrl,
  SystemCustomService,
  systemCustomRoutes,
  systemCustomUpkeep,
} from './modules/system-custom/index.ts';
import { FenceService, fenceRoutes, fenceUpkeep } from './modules/fence/index.ts';
import { EventTickets, LiveEvents, liveEventRoutes } from './plugins/live-events.ts';
import { mqttGateway } from './plugins/mqtt/gateway.ts';
import { DeviceLink } from './plugins/mqtt/device-link.ts';
import { DeviceBus } from './plugins/mqtt/device-bus.ts';
import { BROKER_HOOK_PREFIX, brokerHookRoutes } from './plugins/mqtt/auth-hook.ts';
import { OPEN_API_PREFIX } from '@cpc/contracts/open-api';
import { JobQueue, jobQueue } from './plugins/job-queue.ts';
import { logHooks, logSerializers } from './lib/log-redact.ts';
import {
  OrderService,
  PAY_PREFIX,
  createGateway,
  orderRoutes,
  orderSweep,
  paymentGatewayRoutes,
} from './modules/order/index.ts';

export const API_PREFIX = '/apiAdmin';

/** Routes that carry no encrypted payload: "login RSA is off" (SPEC §7), uploads, files and the key itself. */
const CRYPTO_EXEMPT =
  /^\/(pay\/|apiAdmin\/(publicKey|refreshToken|user\/v1\/login|user\/login|upload|objects\/|device-files\/|device-media\/|docs))/;

declare module 'fastify' {
  interface FastifyInstance {
    storage: ObjectStorage;
    tasks: TaskService;
    /** The AI library's cloud OCR jobs (tests run its sweep). */
    ocr: OcrService;
    upgrades: UpgradeService;
    pushes: PushService;
    systemCustom: SystemCustomService;
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
            ...(opts.logStream ? { stream: opts.logStream } : {}),
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
  // the locks of the cluster-once periodic jobs (docs/cluster-state.md): one PostgreSQL session of this node's own
  const clusterLocks = new ClusterLocks(config.DATABASE_URL, app.log.child({ module: 'cluster-locks' }));
  app.decorate('clusterLocks', clusterLocks);
  app.addHook('onClose', () => clusterLocks.close());

  const [jwtSecret, storageSecret] = await Promise.all([
    ensureSecret(db, 'jwt_secret'),
    ensureSecret(db, 'storage_secret'),
  ]);
  const tokens = new AccessTokens(jwtSecret, config.ACCESS_TOKEN_TTL);
  const objectsDir = path.join(config.dataDir, 'objects');
  const storage = new ObjectStorage(objectsDir, storageSecret, await storageDriver(config.STORAGE_URL, objectsDir));
  // a bucket the node cannot reach is told at start (the node still starts: S3 may come back)
  storage.driver.check?.().catch((e: Error) => app.log.error(`STORAGE_URL: ${e.message}`));
  const captcha = createCaptchaProvider(config.CAPTCHA_PROVIDER, db, config.CAPTCHA_TTL_S);
  const sms = createSmsProvider(config.SMS_PROVIDER, config.dataDir, app.log);

  if (config.OPEN_TRUSTED_PROXIES.length)
    app.log.warn('OPEN_TRUSTED_PROXIES is deprecated: it is merged into TRUSTED_PROXIES, which the whole server uses');
  const dist = config.WEB_DIST ?? path.resolve(import.meta.dirname, '../../web/dist');
  await app.register(securityHeaders, {
    webDist: dist,
    mapTileUrl: config.MAP_TILE_URL,
    storageOrigin: storage.driver.origin ?? undefined,
  });
  await app.register(rateLimits, { db, notFound: config.RATE_LIMIT_NOT_FOUND });
  await app.register(cookie);
  await app.register(multipart, { limits: { fileSize: UPLOAD_MAX_BYTES, files: 1 } });
  await registerApiDocs(app, API_PREFIX, { access: config.API_DOCS, db, tokens });
  const isOpen = (url: string) => url.startsWith(`${OPEN_API_PREFIX}/`);
  // Live events fan out through PostgreSQL, so the LISTEN connection needs the database's URL.
  const events = new LiveEvents(db, config.DATABASE_URL, app.log.child({ module: 'live-events' }));
  app.addHook('onReady', () => events.start());
  app.addHook('onClose', () => events.stop());
  // the broker connection, built first: the services that send to devices get it, the gateway starts it
  const link = new DeviceLink(db, config, app.log.child({ module: 'mqtt' }));
  // what devices say reaches the modules on the device bus: the gateway publishes, each module subscribes below
  const bus = new DeviceBus();
  app.decorate('deviceBus', bus);
  const tasks = new TaskService(db, events, link, {
    ackTimeoutS: config.TASK_ACK_TIMEOUT_S,
    resultTimeoutS: config.TASK_RESULT_TIMEOUT_S,
    retryBackoffS: config.TASK_RETRY_BACKOFF_S,
    onUnwaitedError: (err) => app.log.error({ err }, 'tasks: writing an acknowledgement or a progress report failed'),
  });
  // what tests and node-local tools reach through the app: the object storage and the device tasks
  app.decorate('storage', storage);
  app.decorate('tasks', tasks);
  tasks.listenTo(bus);
  // firmware releases (issue 15): moved on by their tasks' changes and a periodic reconcile (one node at a time)
  const upgrades = new UpgradeService(db, tasks, events, app.log.child({ module: 'upgrade' }));
  tasks.onChange((row) => upgrades.onTaskChange(row));
  app.decorate('upgrades', upgrades);
  // a package task carries, at each delivery, a fresh signed link to the package (issue 15); devices reach the
  // server at PUBLIC_URL, else at the address this node listens on
  tasks.addAtDelivery(['upgrade', 'install_app', 'deploy_model'], (row) => ({
    url: deviceDownloadUrl(storage, row.id, new Date(row.expire_at), deviceOrigin(app, config)),
  }));
  // a file request's task carries, at each delivery, a fresh signed upload link bound to its request (issue 15)
  const files = new FileAcquisitionService(db, storage, tasks, events);
  tasks.addAtDelivery(['fetch_file'], (row) => ({
    uploadUrl: files.uploadUrl(
      Number((row.params as { requestId?: unknown } | null)?.requestId),
      new Date(row.expire_at),
      deviceOrigin(app, config),
    ),
  }));
  tasks.onChange((row) => files.onTask(row));
  // push tasks (issue 16): each delivery is a push_message task; an image push carries a fresh signed image link
  const pushes = new PushService(db, tasks, events, app.log.child({ module: 'push' }), config.PUSH_EVENT_MS);
  tasks.onChange((row) => pushes.onTaskChange(row));
  // pushes and releases are heard by the consoles that see them in their lists
  events.entityReach('push', (access, ids) => pushes.visibleIds(access, ids));
  events.entityReach('upgrade', (access, ids) => upgrades.visibleIds(access, ids));
  tasks.addAtDelivery(['push_message'], (row) => {
    const key = (row.params as { imageKey?: unknown } | null)?.imageKey;
    return typeof key === 'string' ? { imageUrl: deviceOrigin(app, config) + storage.signedUrl(key, 86_400) } : {};
  });
  app.decorate('pushes', pushes);
  await app.register(fileAcquisitionUpkeep, { files });
  // printing (DESIGN §6): jobs, their webhooks on the pg-boss queue, the signed open API
  const queue = new JobQueue({
    databaseUrl: config.DATABASE_URL,
    pollMs: config.JOB_QUEUE_POLL_MS,
    log: app.log.child({ module: 'job-queue' }),
  });
  const printContent = new PrintContent(db, storage, {
    maxBytes: config.PRINT_IMAGE_MAX_BYTES,
    timeoutMs: config.PRINT_IMAGE_TIMEOUT_MS,
    maxHeight: 2400,
    allowPrivate: config.OUTBOUND_PRIVATE === 'allow',
  });
  const webhooks = new WebhookSender(
    db,
    queue,
    {
      backoffS: config.WEBHOOK_BACKOFF_S,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      allowPrivate: config.OUTBOUND_PRIVATE === 'allow',
    },
    app.log.child({ module: 'webhooks' }),
  );
  const prints = new PrintService(db, printContent, link, webhooks, {
    ackTimeoutS: config.PRINT_ACK_TIMEOUT_S,
    retryBackoffS: config.PRINT_RETRY_BACKOFF_S,
    maxAttempts: config.PRINT_MAX_ATTEMPTS,
    resultTimeoutS: config.PRINT_RESULT_TIMEOUT_S,
  });
  // the submits and printers' reports still in a group commit are written before the database goes
  app.addHook('onClose', () => prints.drain());
  const openAuth = new OpenAuth(db, {
    clockWindowS: config.OPEN_CLOCK_WINDOW_S,
    rateLimit: config.OPEN_RATE_LIMIT,
    consoleSecret: await ensureSecret(db, 'console_test_print_secret'),
  });
  const requestLog = new RequestLog(
    db,
    { flushMs: config.OPEN_LOG_FLUSH_MS, retentionDays: config.OPEN_LOG_RETENTION_DAYS },
    app.log.child({ module: 'open-api' }),
  );
  await app.register(jobQueue, { queue });
  await app.register(openApiUpkeep, { auth: openAuth, requestLog });
  await app.register(webhookUpkeep, { webhooks });
  await app.register(systemLogRetention, { db, retentionDays: config.SYSTEM_LOG_RETENTION_DAYS });
  prints.listenTo(bus);
  listenForDeviceFaults(bus, db, events);
  await app.register(mqttGateway, { db, config, events, link, bus });
  // application management (issue 15): each device's inventory is stored, and the required-apps policy applied
  const applications = new ApplicationService(db, tasks, events);
  bus.on('inventory', (deviceId, msg) => applications.onInventory(deviceId, msg));
  bus.on('event', (deviceId, msg) => pushes.onEvent(deviceId, msg));
  await app.register(applicationUpkeep, { apps: applications });
  // system customization (issue 16): profiles resolved per device, apply_profile tasks carrying fresh media links,
  // each device's report of its effective configuration compared for drift
  const custom = new SystemCustomService(db, storage, tasks, events);
  app.decorate('systemCustom', custom);
  tasks.onChange((row) => {
    custom.onTaskChange(row).catch((err: unknown) => app.log.warn({ err }, 'system-custom: task change failed'));
  });
  tasks.addAtDelivery(['apply_profile'], (row) =>
    custom.withLinks(row.params, (part) =>
      profileMediaUrl(storage, row.id, part, new Date(row.expire_at), deviceOrigin(app, config)),
    ),
  );
  bus.on('profile', (deviceId, msg) => custom.onReport(deviceId, msg));
  await app.register(systemCustomUpkeep, { db, custom });
  // geofencing (issue 16): each location report is evaluated against the device's fences after Presence stored it
  const fences = new FenceService(db, events, webhooks, config);
  bus.on('location', (deviceId, msg) => fences.onLocation(deviceId, msg));
  await app.register(fenceUpkeep, { fences, dwellCheckMs: config.FENCE_DWELL_CHECK_MS });
  // orders (issue 13): the payment gateway, the close sweep, the gateway-facing routes under /pay
  const orders = new OrderService(
    db,
    events,
    link,
    createGateway(config, await ensureSecret(db, 'sandbox_pay_secret')),
    app.log.child({ module: 'order' }),
  );
  await app.register(orderSweep, { orders, everyS: config.ORDER_SWEEP_S });
  await app.register(simUpkeep, { db, events });
  // the message centre's mail (issue 14): SMTP_URL, else the outbox file; once across nodes
  const mailTarget = { smtpUrl: config.SMTP_URL, dataDir: config.dataDir };
  await app.register(inboxMail, {
    mailer: new InboxMailer(
      db,
      { ...mailTarget, from: config.MAIL_FROM, publicUrl: () => deviceOrigin(app, config) },
      app.log.child({ module: 'inbox' }),
    ),
    everyMs: config.MAIL_INTERVAL_MS,
    target: describeMailTarget(mailTarget),
  });
  const workOrders = new WorkOrderService(db, storage, events);
  await app.register(workOrderUpkeep, { db, orders: workOrders });
  await app.register(noticeUpkeep, { db, events });
  // the AI library's cloud OCR (issue 15): a durable queue in ocr_jobs, a tesseract.js pool started on the first job
  const ocr = new OcrService(
    db,
    storage,
    events,
    prints,
    new OcrPool(config.OCR_WORKERS),
    {
      tenantLimit: config.OCR_TENANT_LIMIT,
      pollMs: config.OCR_POLL_MS,
      leaseS: config.OCR_LEASE_S,
      maxAttempts: 3,
    },
    app.log.child({ module: 'ai-library' }),
  );
  const ocrUpkeep = new Periodic((err, job) => app.log.warn({ err }, `ocr: ${job} failed`), {
    locks: app.clusterLocks,
    scope: 'ocr',
  });
  app.addHook('onReady', async () => {
    ocr.start();
    ocrUpkeep.every(Math.max(config.OCR_POLL_MS, 1000), 'sweep', () => ocr.sweep(), 'cluster');
  });
  app.addHook('onClose', async () => {
    await ocrUpkeep.stop();
    await ocr.stop();
  });
  app.decorate('ocr', ocr);
  const packageUploads = new ChunkedUploads(storage);
  await app.register(packageUpkeep, { uploads: packageUploads });
  await app.register(upgradeUpkeep, { upgrades });
  await app.register(pushUpkeep, { pushes, everyMs: config.PUSH_TICK_MS });
  const eventTickets = new EventTickets(await ensureSecret(db, 'events_ticket_secret'));

  const isBrokerHook = (url: string) => url.startsWith(`${BROKER_HOOK_PREFIX}/`);
  await app.register(payloadCrypto, {
    scheme: config.PAYLOAD_CRYPTO,
    keyDir: path.join(config.dataDir, 'keys'),
    db, // replays refused on every node (payload_replays)
    exempt: (url: string) => CRYPTO_EXEMPT.test(url) || isOpen(url) || isBrokerHook(url),
  });
  await app.register(brokerHookRoutes, { prefix: BROKER_HOOK_PREFIX, config, link });
  await app.register(openApiRoutes, {
    prefix: OPEN_API_PREFIX,
    prints,
    auth: openAuth,
    requestLog,
    more: [async (open) => open.register(openOcrRoutes, { ocr })],
  });
  await app.register(paymentGatewayRoutes, { prefix: PAY_PREFIX, orders, origin: () => deviceOrigin(app, config) });

  await app.register(socialCallbackRoute);
  await app.register(
    async (api) => {
      registerAuth(api, db, tokens);
      const auth = new AuthService(db, config, tokens, captcha, sms);
      await api.register(authRoutes, {
        auth,
        captcha,
        refreshTtl: config.REFRESH_TOKEN_TTL,
        limits: {
          captcha: config.RATE_LIMIT_CAPTCHA,
          sms: config.RATE_LIMIT_SMS,
          register: config.RATE_LIMIT_REGISTER,
        },
        social: new SocialLogin(db, config, auth),
        origin: () => deviceOrigin(app, config),
      });
      await api.register(userRoutes, { users: new UserService(db, config, storage) });
      await api.register(identityRoutes, { identity: new IdentityService(db, storage, events) });
      await api.register(menuRoutes, { db, events });
      await api.register(systemRoutes);
      await api.register(noticeRoutes, { db, storage, events });
      await api.register(aiLibraryRoutes, { ocr });
      await api.register(inboxRoutes, { db, events });
      await api.register(uploadRoutes, { storage, db });
      await api.register(deviceDownloadRoutes, { db, storage });
      await api.register(deviceUploadRoutes, { files });
      await api.register(fileAcquisitionRoutes, { db, files });
      await api.register(chunkedUploadRoutes, { db, storage, uploads: packageUploads });
      await api.register(packageRoutes, { db, storage, uploads: packageUploads, events });
      await api.register(taskRoutes, { tasks });
      await api.register(upgradeRoutes, { upgrades });
      await api.register(pushRoutes, { pushes, storage });
      await api.register(applicationRoutes, { apps: applications });
      await api.register(systemCustomRoutes, { custom });
      await api.register(profileMediaRoutes, { storage, custom });
      await api.register(fenceRoutes, { fences });
      await api.register(liveEventRoutes, { db, events, tickets: eventTickets });
      await api.register(roleRoutes, { roles: new RoleService(db, events) });
      const subAccounts = new SubAccountService(db, events);
      await api.register(subAccountRoutes, { subAccounts, base: '/system/subAccount' });
      await api.register(subAccountRoutes, { subAccounts, base: '/system/user', staff: true });
      await api.register(departmentRoutes, { departments: new DepartmentService(db), events });
      await api.register(deviceRoutes, { db, tasks });
      await api.register(deviceModelRoutes, { db });
      await api.register(deviceRegistryRoutes, { db });
      await api.register(dashboardRoutes, { db });
      await api.register(workbenchRoutes, { db });
      await api.register(orderRoutes, { db, orders, origin: () => deviceOrigin(app, config) });
      await api.register(flowRateRoutes, { db });
      await api.register(workOrderRoutes, { orders: workOrders });
      await api.register(systemLogRoutes, { log: new SystemLogService(db) });
      await api.register(integrationRoutes, {
        integration: new IntegrationService(db, {
          defaultRateLimit: config.OPEN_RATE_LIMIT,
          allowPrivate: config.OUTBOUND_PRIVATE === 'allow',
        }),
        prints,
        content: printContent,
        webhooks,
        openAuth,
        inject: (o) => app.inject(o),
      });
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

  if (fs.existsSync(path.join(dist, 'index.html'))) {
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
  return app;
}
