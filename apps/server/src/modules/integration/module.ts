import { defineModule } from '../../plugins/module.ts';
import { IntegrationService, WebhookSender, integrationRoutes, webhookUpkeep } from './index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    webhooks: WebhookSender;
  }
}

/** API keys and webhooks: the sender delivers on the durable job queue; printing and fences announce through it. */
export const integrationModule = defineModule({
  name: 'integration',
  async setup(app, { db, queue, config }) {
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
    app.decorate('webhooks', webhooks);
    await app.register(webhookUpkeep, { webhooks });
  },
  // the console's integration pages print through the open API's own checks (the test print)
  api: async (api) => {
    const { db, config } = api.core;
    await api.register(integrationRoutes, {
      integration: new IntegrationService(db, {
        defaultRateLimit: config.OPEN_RATE_LIMIT,
        allowPrivate: config.OUTBOUND_PRIVATE === 'allow',
      }),
      prints: api.prints,
      content: api.printContent,
      webhooks: api.webhooks,
      openAuth: api.openAuth,
      inject: (o) => api.inject(o),
    });
  },
});
