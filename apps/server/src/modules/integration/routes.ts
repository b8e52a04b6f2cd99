import { randomUUID } from 'node:crypto';
import type { FastifyRequest, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PERMISSIONS, envelopeSchema, pagedEnvelope, type AppCode } from '@cpc/contracts';
import {
  appKeyCreateBody,
  appKeyIdBody,
  appKeyIdParams,
  appKeyListQuery,
  appKeyStateBody,
  appKeyUpdateBody,
  appKeyView,
  appKeyWithSecret,
  markupPreview,
  markupPreviewBody,
  printJobDetail,
  printJobIdParams,
  printJobItem,
  printJobListQuery,
  requestLogItem,
  requestLogQuery,
  testPrintBody,
  usageQuery,
  usageView,
  webhookDeliveryDetail,
  webhookDeliveryItem,
  webhookIdParams,
  webhookListQuery,
} from '@cpc/contracts/integration';
import { OPEN_API_PREFIX, OPEN_HEADERS } from '@cpc/contracts/open-api';
import { escapeMarkup } from '@cpc/contracts/print-markup';
import { caller } from '../../plugins/auth.ts';
import { AppError, VerbatimError, ok } from '../../plugins/errors.ts';
import type { PrintContent, PrintService } from '../print/index.ts';
import { TEST_PRINT_HEADER, signOpenRequest, type OpenAuth } from '../open-api/index.ts';
import type { IntegrationService, JobReader } from './service.ts';
import { dataAccessOf } from '../../lib/data-scope.ts';
import type { WebhookSender } from './webhooks.ts';

export interface IntegrationRouteOptions {
  integration: IntegrationService;
  prints: PrintService;
  content: PrintContent;
  webhooks: WebhookSender;
  openAuth: OpenAuth;
  /** Calls the app's own open API in-process (the test print goes through it like any integrator's call). */
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>;
}

/** The default test receipt: the key, the device and the time, a rule, Chinese text, a QR code, a cut. */
function sampleReceipt(key: { name: string; appId: string }, sn: string): string {
  return [
    '<C><L>Test print</L></C>',
    '<C>测试打印</C>',
    '<HR>',
    `Key: ${escapeMarkup(key.name)}`,
    `App id: ${key.appId}`,
    `Device: ${sn}`,
    `Time: ${new Date().toISOString().slice(0, 19).replace('T', ' ')} UTC`,
    '<HR>',
    `<C><QR>${key.appId}</QR></C>`,
    '<CUT>',
  ].join('\n');
}

/** The caller as a reader of print jobs: its account and its data scope. */
const reader = (req: FastifyRequest): JobReader => {
  const u = caller(req);
  return { scope: u.scope, access: dataAccessOf(u) };
};

type App = Parameters<FastifyPluginAsyncZod<IntegrationRouteOptions>>[0];

const tags = ['integration'];
const manage = { permission: PERMISSIONS.integrationManage };
const view = { permission: PERMISSIONS.printView };

/** After a change of a key: this node's copy of its row goes at once (the others re-read it at their next call's check). */
const forgetting =
  (openAuth: OpenAuth) =>
  <T extends { appId: string }>(key: T): T => {
    openAuth.forgetKey(key.appId);
    return key;
  };

/** App keys: the list, a new key (its secret shown once), a change of its settings or state. */
function keyRoutes(app: App, { integration, openAuth }: IntegrationRouteOptions): void {
  const forget = forgetting(openAuth);
  app.get(
    '/integration/key/list',
    {
      config: manage,
      schema: {
        tags,
        summary: 'App keys of the account (no secrets)',
        querystring: appKeyListQuery,
        response: { 200: pagedEnvelope(appKeyView) },
      },
    },
    async (req) => ok(await integration.keys(caller(req).scope, req.query)),
  );
  app.post(
    '/integration/key/create',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Create an app key; its secret is in this answer only',
        body: appKeyCreateBody,
        response: { 200: envelopeSchema(appKeyWithSecret) },
      },
    },
    async (req) => ok(await integration.createKey(caller(req), req.body, req.ip)),
  );
  app.post(
    '/integration/key/update',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Rename a key, set its callback URL, IP allow-list or rate limit',
        body: appKeyUpdateBody,
        response: { 200: envelopeSchema(appKeyView) },
      },
    },
    async (req) => ok(forget(await integration.updateKey(caller(req), req.body, req.ip))),
  );
  app.post(
    '/integration/key/state',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Disable or enable a key',
        body: appKeyStateBody,
        response: { 200: envelopeSchema(appKeyView) },
      },
    },
    async (req) => ok(forget(await integration.setKeyState(caller(req), req.body.id, req.body.state, req.ip))),
  );
}

/** A key's new secret, its deletion, and its request log and usage. */
function keyEndRoutes(app: App, { integration, openAuth }: IntegrationRouteOptions): void {
  const forget = forgetting(openAuth);
  app.post(
    '/integration/key/rotate',
    {
      config: manage,
      schema: {
        tags,
        summary: 'A new secret (in this answer only); the old one stops working at once',
        body: appKeyIdBody,
        response: { 200: envelopeSchema(appKeyWithSecret) },
      },
    },
    async (req) => ok(forget(await integration.rotateKey(caller(req), req.body.id, req.ip))),
  );
  app.post(
    '/integration/key/delete',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Delete a key: its calls stop; its jobs stay',
        body: appKeyIdBody,
        response: { 200: envelopeSchema(z.null()) },
      },
    },
    async (req) => {
      forget(await integration.deleteKey(caller(req), req.body.id, req.ip));
      return ok(null);
    },
  );
  app.get(
    '/integration/key/:id/requests',
    {
      config: manage,
      schema: {
        tags,
        summary: "The key's calls of the last 30 days, newest first",
        params: appKeyIdParams,
        querystring: requestLogQuery,
        response: { 200: pagedEnvelope(requestLogItem) },
      },
    },
    async (req) => ok(await integration.requests(caller(req).scope, req.params.id, req.query)),
  );
  app.get(
    '/integration/key/:id/usage',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Calls, errors and jobs per day',
        params: appKeyIdParams,
        querystring: usageQuery,
        response: { 200: envelopeSchema(usageView) },
      },
    },
    async (req) => ok(await integration.usage(caller(req).scope, req.params.id, req.query)),
  );
}

/** The account's print jobs within the reader's data scope, and the cancel of one never sent. */
function jobRoutes(app: App, { integration, prints }: IntegrationRouteOptions): void {
  app.get(
    '/integration/job/list',
    {
      config: view,
      schema: {
        tags,
        summary: 'Print jobs of the account, newest first',
        querystring: printJobListQuery,
        response: { 200: pagedEnvelope(printJobItem) },
      },
    },
    async (req) => ok(await integration.jobList(reader(req), req.query)),
  );
  app.get(
    '/integration/job/:id',
    {
      config: view,
      schema: {
        tags,
        summary: 'One job with its content and rendered preview',
        params: printJobIdParams,
        response: { 200: envelopeSchema(printJobDetail) },
      },
    },
    async (req) => ok(await integration.jobDetail(reader(req), req.params.id)),
  );
  app.post(
    '/integration/job/:id/cancel',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Cancel a job never sent to the printer; 400 not_cancelable once it was',
        params: printJobIdParams,
        response: { 200: envelopeSchema(printJobItem) },
      },
    },
    async (req) => {
      const u = caller(req);
      // a job on a device outside the caller's data scope is not found, before anything changes
      await integration.jobItem(reader(req), req.params.id);
      await prints.cancelInTenant(u.tenantId, req.params.id);
      return ok(await integration.jobItem(reader(req), req.params.id));
    },
  );
}

/** A test print through the open API's own checks, signed with the key; and the markup preview. */
function testPrintRoutes(app: App, { integration, content, openAuth, inject }: IntegrationRouteOptions): void {
  app.post(
    '/integration/testPrint',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Print on a device through the open API, signed with the key',
        body: testPrintBody,
        response: { 200: envelopeSchema(printJobItem) },
      },
    },
    async (req) => {
      const u = caller(req);
      const key = await integration.key(u.scope, req.body.keyId);
      const sn = await integration.testPrintDevice(reader(req), req.body.deviceId);
      const url = `${OPEN_API_PREFIX}/print`;
      const body = JSON.stringify({
        deviceSn: sn,
        content: req.body.content ?? sampleReceipt({ name: key.name, appId: key.app_id }, sn),
        copies: req.body.copies ?? 1,
        originId: `console-test-${randomUUID()}`,
      });
      const headers = signOpenRequest({ appId: key.app_id, secret: key.secret, method: 'POST', url, body });
      const res = await inject({
        method: 'POST',
        url,
        payload: body,
        remoteAddress: req.ip,
        headers: {
          ...headers,
          'content-type': 'application/json',
          ...(req.headers['accept-language'] ? { 'accept-language': req.headers['accept-language'] } : {}),
          [TEST_PRINT_HEADER]: openAuth.testPrintMarker(headers[OPEN_HEADERS.nonce]),
        },
      });
      const answer = res.json() as { code: number; msg: string; data: { id?: string } | null };
      if (answer.code === 200 && answer.data?.id) return ok(await integration.jobItem(reader(req), answer.data.id));
      // a refused signature is 401 on the open API; to the console a 401 means "log in again", so it is a 400 here
      const code = (answer.code === 401 ? 400 : answer.code) as AppCode;
      // the open API answered in the caller's language (its Accept-Language went along)
      const headers2: Record<string, string> = res.headers['retry-after']
        ? { 'retry-after': String(res.headers['retry-after']) }
        : {};
      if (answer.code === 401)
        throw new AppError(
          code,
          'integration.keyRefused',
          { why: answer.msg },
          { data: answer.data, headers: headers2 },
        );
      throw new VerbatimError(code, answer.msg, answer.data, headers2);
    },
  );
  app.post(
    '/integration/markup/preview',
    {
      config: view,
      schema: {
        tags,
        summary: 'Validate markup and lay it out as the printer would',
        body: markupPreviewBody,
        response: { 200: envelopeSchema(markupPreview) },
      },
    },
    async (req) => {
      const u = caller(req);
      let paper = { kind: 'printer' as const, paperWidthMm: req.body.paperWidthMm ?? 58 };
      if (req.body.deviceId) {
        paper = { kind: 'printer', paperWidthMm: await integration.previewPaperWidth(reader(req), req.body.deviceId) };
      }
      const prepared = await content.prepare(u.tenantId, req.body.content, paper);
      return ok({ lines: prepared.preview, columns: prepared.columns, paperWidthMm: paper.paperWidthMm });
    },
  );
}

/** Webhook deliveries: the list, one with its exact body and attempts, and a manual resend. */
function webhookRoutes(app: App, { integration, webhooks }: IntegrationRouteOptions): void {
  app.get(
    '/integration/webhook/list',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Webhook deliveries, newest first',
        querystring: webhookListQuery,
        response: { 200: pagedEnvelope(webhookDeliveryItem) },
      },
    },
    async (req) => ok(await integration.webhookList(reader(req), req.query)),
  );
  app.get(
    '/integration/webhook/:id',
    {
      config: manage,
      schema: {
        tags,
        summary: 'One delivery: the exact body and every attempt',
        params: webhookIdParams,
        response: { 200: envelopeSchema(webhookDeliveryDetail) },
      },
    },
    async (req) => ok(await integration.webhookDetail(reader(req), req.params.id)),
  );
  app.post(
    '/integration/webhook/:id/resend',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Send a delivery once more, now; answers after the attempt',
        params: webhookIdParams,
        response: { 200: envelopeSchema(webhookDeliveryDetail) },
      },
    },
    async (req) => {
      await integration.webhookDetail(reader(req), req.params.id);
      await webhooks.attempt(req.params.id, { manual: true });
      return ok(await integration.webhookDetail(reader(req), req.params.id));
    },
  );
}

/** System integration in the console (contracts: integration.ts); everything in the caller's account. */
export const integrationRoutes: FastifyPluginAsyncZod<IntegrationRouteOptions> = async (app, opts) => {
  // An app key acts for the whole account (the open API reaches every device of it): keys, their request logs,
  // webhook deliveries and test prints are managed only by someone who sees the whole account. Print jobs are read
  // (print:view) within the reader's data scope.
  app.addHook('preHandler', async (req) => {
    if (req.routeOptions.config.permission !== manage.permission) return;
    if (dataAccessOf(caller(req)).scope !== 'all') throw new AppError(403, 'integration.needsAccountScope');
  });
  keyRoutes(app, opts);
  keyEndRoutes(app, opts);
  jobRoutes(app, opts);
  testPrintRoutes(app, opts);
  webhookRoutes(app, opts);
};
