import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { PAYMENT_PROVIDERS } from '@cpc/contracts';
import type { OrderService } from './service.ts';
import { SandboxGateway } from './payment/index.ts';

/** Where the gateway-facing routes live (no console token, no payload encryption). */
export const PAY_PREFIX = '/pay';

/** The tries of the sandbox gateway's notification and the waits before each retry (ms), like a real gateway's. */
export const SANDBOX_NOTIFY_BACKOFF_MS = [500, 2000];

const formParams = z.record(z.string().max(64), z.string().max(4000));

function langOf(req: FastifyRequest, asked: string | undefined): 'zh' | 'en' {
  if (asked === 'zh' || asked === 'en') return asked;
  const accept = String(req.headers['accept-language'] ?? '');
  return /^\s*en\b/i.test(accept) ? 'en' : 'zh';
}

/**
 * Posts a sandbox notification to the merchant's notify URL as a gateway would: form-encoded, asynchronously,
 * again after a wait while the answer is not exactly `success`.
 */
export async function deliverNotification(
  url: string,
  params: Record<string, string>,
  log: FastifyBaseLogger,
  backoffMs = SANDBOX_NOTIFY_BACKOFF_MS,
): Promise<boolean> {
  for (let attempt = 0; attempt <= backoffMs.length; attempt++) {
    if (attempt) await new Promise((r) => setTimeout(r, backoffMs[attempt - 1]));
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded;charset=utf-8' },
        body: new URLSearchParams(params).toString(),
        signal: AbortSignal.timeout(10_000),
      });
      const text = (await res.text()).trim();
      if (text === 'success') return true;
      log.warn({ url, attempt, status: res.status, answer: text.slice(0, 100) }, 'sandbox notify not accepted');
    } catch (err) {
      log.warn({ url, attempt, err: (err as Error).message }, 'sandbox notify failed');
    }
  }
  return false;
}

type App = Parameters<FastifyPluginAsyncZod>[0];

/** The sandbox gateway's cashier page and its buttons (not in production). */
function sandboxRoutes(app: App, gateway: SandboxGateway, origin: () => string): void {
  app.get(
    '/sandbox/cashier',
    {
      config: { auth: false },
      schema: {
        // the gateway's side, not the console API: plain text and HTML, not the envelope
        hide: true,
        tags: ['order'],
        summary: "The sandbox gateway's cashier page (HTML; not in production)",
        querystring: z.object({ trade: z.string().max(4000), lang: z.enum(['zh', 'en']).optional() }),
      },
    },
    async (req, reply) => {
      const trade = gateway.readTrade(req.query.trade);
      const lang = langOf(req, req.query.lang ?? trade?.lang);
      const self = `${origin()}${PAY_PREFIX}/sandbox/cashier?trade=${encodeURIComponent(req.query.trade)}`;
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(await gateway.cashierPage(req.query.trade, trade, lang, self));
    },
  );

  app.post(
    '/sandbox/submit',
    {
      config: { auth: false },
      schema: {
        // the gateway's side, not the console API: plain text and HTML, not the envelope
        hide: true,
        tags: ['order'],
        summary: 'The sandbox cashier\'s "Pay" / "Fail": the gateway then notifies the server asynchronously',
        body: z.object({
          trade: z.string().max(4000),
          action: z.enum(['pay', 'fail']),
          lang: z.enum(['zh', 'en']).optional(),
        }),
      },
    },
    async (req, reply) => {
      const trade = gateway.readTrade(req.body.trade);
      const lang = langOf(req, req.body.lang ?? trade?.lang);
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
      if (!trade || Date.now() > trade.exp) return reply.code(400).send(gateway.resultPage(lang, 'invalid'));
      const params = gateway.notification(trade, req.body.action);
      // asynchronous, like a gateway: the page answers now, the notification follows
      setImmediate(() => void deliverNotification(trade.notifyUrl, params, req.log));
      return reply.send(gateway.resultPage(lang, req.body.action));
    },
  );
}

/**
 * The gateway side of payment, outside the console's API: the notify route every provider posts to
 * (`success` / `fail` in plain text, as Alipay expects), and with the sandbox its cashier page and buttons.
 */
export const paymentGatewayRoutes: FastifyPluginAsyncZod<{
  orders: OrderService;
  /** The server's public origin (PUBLIC_URL, or the address it listens on): the cashier's QR code links under it. */
  origin: () => string;
}> = async (app, { orders, origin }) => {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  app.post(
    '/notify/:provider',
    {
      config: { auth: false },
      schema: {
        // the gateway's side, not the console API: plain text and HTML, not the envelope
        hide: true,
        tags: ['order'],
        summary: "A payment gateway's asynchronous notification (form-encoded); answers success or fail",
        params: z.object({ provider: z.enum(PAYMENT_PROVIDERS) }),
        body: formParams,
      },
    },
    async (req, reply) => {
      const answer = await orders.notify(req.params.provider, req.body, req.ip);
      return reply.type('text/plain; charset=utf-8').send(answer);
    },
  );

  const gateway = orders.gateway;
  if (!(gateway instanceof SandboxGateway)) return;
  sandboxRoutes(app, gateway, origin);
};
