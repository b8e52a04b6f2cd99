import type { FastifyPluginAsync } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { envelopeSchema, pagedEnvelope } from '@cpc/contracts';
import {
  openClearResult,
  openDevice,
  openDeviceParams,
  openDeviceStatus,
  openDevicesQuery,
  openJobIdParams,
  openPrintBody,
  openPrintJob,
  openPrintListQuery,
  openPrintSubmitted,
} from '@cpc/contracts/open-api';
import { AppError, VerbatimError, badRequest, ok } from '../../plugins/errors.ts';
import { toOpenJob, type PrintService } from '../print/index.ts';
import type { OpenAuth, OpenContext } from './auth.ts';
import type { RequestLog } from './request-log.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: an open-API route that needs no signature (its document). */
    openAuth?: false;
    /** The call's own write carries its rate count and nonce (OpenAuth.gate): one statement, one commit. */
    countWithWrite?: true;
  }
}

/** Largest body of an open-API call: 20,000 characters of markup with room for JSON escapes. */
const BODY_LIMIT = 256 * 1024;

type App = Parameters<FastifyPluginAsyncZod>[0];
const tags = ['open api'];

/** The key of a call that passed the signature check (401 otherwise). */
const keyOf = (req: { open: OpenContext | null }) => {
  const k = req.open?.key;
  if (!k || !req.open?.authenticated) throw new AppError(401, 'open.notSigned');
  return k;
};

/** Every call carries its `open` context; a JSON body is kept raw for its hash and parsed after the signature check. */
function rawBodies(app: App): void {
  app.decorateRequest('open', null);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (req, body, done) => {
    const buf = body as Buffer;
    if (req.open) req.open.rawBody = buf;
    if (!buf.length) return done(null, undefined);
    try {
      done(null, JSON.parse(buf.toString('utf8')));
    } catch {
      const err = badRequest('body', 'open.notJson');
      // answered after the signature check: a badly signed call learns nothing about its body first
      if (!req.open) return done(err, undefined);
      req.open.bodyError = err;
      done(null, undefined);
    }
  });
}

/**
 * The signature: headers and key before the body is read, the rest (and the count) once it is in; a call whose
 * write carries its count is counted before any other answer leaves.
 */
function signatureChecks(app: App, auth: OpenAuth): void {
  app.addHook('onRequest', async (req) => {
    const ctx: OpenContext = {
      key: null,
      authenticated: false,
      reason: null,
      ip: auth.clientIp(req),
      rawBody: undefined,
      bodyError: null,
      jobId: null,
      newJob: false,
      testPrint: false,
      startedAt: Date.now(),
      headers: null,
      pendingCount: null,
    };
    req.open = ctx;
    if (req.routeOptions.config?.openAuth === false) return;
    await auth.checkHeaders(req, ctx);
  });
  app.addHook('preValidation', async (req) => {
    if (req.routeOptions.config?.openAuth === false || !req.open) return;
    const config = req.routeOptions.config;
    await auth.verify(req, req.open, { countWithWrite: config?.countWithWrite === true });
    if (req.open.bodyError) {
      // counted first: a replay or a call over the limit is refused as such whatever its body
      await auth.countPending(req, req.open);
      throw req.open.bodyError;
    }
  });
  // before any answer leaves: a call whose count its write was to carry, and that ended otherwise, is counted
  // now, so its nonce is durable (its own refusal can no longer be said: the answer is made)
  app.addHook('onSend', async (req) => {
    const o = req.open;
    if (o?.pendingCount) {
      await auth.countPending(req, o).catch((e: unknown) => {
        if (!(e instanceof AppError)) throw e;
      });
    }
  });
  app.addHook('onError', async (req, _reply, error) => {
    const err: unknown = error;
    if (!req.open || !(err instanceof AppError || err instanceof VerbatimError)) return;
    const data = err.data as { reason?: string; markup?: { reason: string } } | null;
    req.open.reason = data?.reason ?? (data?.markup ? `markup:${data.markup.reason}` : null);
  });
}

/** Every call of an identified key goes to its request log, refused ones with their reason. */
function requestLogging(app: App, requestLog: RequestLog): void {
  app.addHook('onResponse', async (req, reply) => {
    const o = req.open;
    if (!o?.key || req.routeOptions.config?.openAuth === false) return;
    const q = req.url.indexOf('?');
    requestLog.add({
      tenantId: o.key.tenantId,
      keyId: o.key.id,
      at: new Date(o.startedAt),
      method: req.method,
      path: q < 0 ? req.url : req.url.slice(0, q),
      call: `${req.method} ${req.routeOptions.url ?? req.url}`,
      code: reply.statusCode,
      reason: o.reason,
      latencyMs: reply.elapsedTime,
      ip: o.ip,
      jobId: o.jobId,
      newJob: o.newJob,
      testPrint: o.testPrint,
    });
  });
}

/** Print jobs: submit (its count carried by the job's write), one, the list, cancel. */
function printRoutes(app: App, prints: PrintService, auth: OpenAuth): void {
  app.post(
    '/print',
    {
      config: { countWithWrite: true },
      // the schema's refusal is said after the count (a replay is refused as one whatever its body)
      attachValidation: true,
      schema: {
        tags,
        operationId: 'submitPrintJob',
        summary: 'Submit a print job; the same originId answers the first job (duplicate: true), never a second one',
        body: openPrintBody,
        response: { 200: envelopeSchema(openPrintSubmitted) },
      },
    },
    async (req) => {
      if (req.validationError) {
        await auth.countPending(req, req.open!);
        throw req.validationError;
      }
      const { job, duplicate } = await prints.submit(keyOf(req), req.body, auth.gate(req, req.open!));
      req.open!.jobId = job.id;
      req.open!.newJob = !duplicate;
      return ok({ ...toOpenJob(job), duplicate });
    },
  );
  app.get(
    '/print/:id',
    {
      schema: {
        tags,
        operationId: 'getPrintJob',
        summary: 'One job of this key',
        params: openJobIdParams,
        response: { 200: envelopeSchema(openPrintJob) },
      },
    },
    async (req) => {
      const job = await prints.get(keyOf(req), req.params.id);
      req.open!.jobId = job.id;
      return ok(toOpenJob(job));
    },
  );
  app.get(
    '/print',
    {
      schema: {
        tags,
        operationId: 'listPrintJobs',
        summary: 'Jobs of this key, newest first',
        querystring: openPrintListQuery,
        response: { 200: pagedEnvelope(openPrintJob) },
      },
    },
    async (req) => ok(await prints.list(keyOf(req), req.query)),
  );
  app.post(
    '/print/:id/cancel',
    {
      schema: {
        tags,
        operationId: 'cancelPrintJob',
        summary: 'Cancel a job never sent to the printer (queued, no delivery yet); 400 not_cancelable otherwise',
        params: openJobIdParams,
        response: { 200: envelopeSchema(openPrintJob) },
      },
    },
    async (req) => {
      req.open!.jobId = req.params.id;
      return ok(toOpenJob(await prints.cancel(keyOf(req), req.params.id)));
    },
  );
}

/** Devices: clear a queue, one device's status, the list. */
function deviceRoutes(app: App, prints: PrintService): void {
  app.post(
    '/devices/:sn/clear',
    {
      schema: {
        tags,
        operationId: 'clearDeviceQueue',
        summary: "Cancel the device's queued jobs of this account",
        params: openDeviceParams,
        response: { 200: envelopeSchema(openClearResult) },
      },
    },
    async (req) => ok(await prints.clearDevice(keyOf(req), req.params.sn)),
  );
  app.get(
    '/devices/:sn/status',
    {
      schema: {
        tags,
        operationId: 'getDeviceStatus',
        summary: 'offline, online and ready, or online with a fault (paper out, cover open, overheat)',
        params: openDeviceParams,
        response: { 200: envelopeSchema(openDeviceStatus) },
      },
    },
    async (req) => ok(await prints.deviceStatus(keyOf(req), req.params.sn)),
  );
  app.get(
    '/devices',
    {
      schema: {
        tags,
        operationId: 'listDevices',
        summary: "The account's devices",
        querystring: openDevicesQuery,
        response: { 200: pagedEnvelope(openDevice) },
      },
    },
    async (req) => ok(await prints.devices(keyOf(req), req.query)),
  );
}

/**
 * The open API under /open/v1 (DESIGN §6, docs/open-api.md): signed calls of a customer's own software. The
 * signature headers and the key are checked before the body is read (an unsigned call is a 401 whatever its
 * body), the rest once the raw body is in (kept for its hash); every call of an identified key goes to its
 * request log, refused ones with their reason.
 */
export const openApiRoutes: FastifyPluginAsyncZod<{
  prints: PrintService;
  auth: OpenAuth;
  requestLog: RequestLog;
  /** Routes of other sections under the same signature check and request log (the AI library's OCR). */
  more?: FastifyPluginAsync[];
}> = async (app, { prints, auth, requestLog, more = [] }) => {
  rawBodies(app);
  signatureChecks(app, auth);
  requestLogging(app, requestLog);
  printRoutes(app, prints, auth);
  deviceRoutes(app, prints);
  for (const routes of more) await app.register(routes);
  app.get('/docs/json', { config: { openAuth: false }, schema: { hide: true } }, async () => app.openSwagger());
};

declare module 'fastify' {
  interface FastifyInstance {
    /** The OpenAPI document of /open/v1 alone (a second @fastify/swagger registration). */
    openSwagger: () => unknown;
  }
}
