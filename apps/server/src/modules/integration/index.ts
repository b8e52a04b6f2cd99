/** The integration module's public entry: API keys, webhooks and their delivery. */
export { IntegrationService } from './service.ts';
export { WebhookSender, insertEventDeliveries } from './webhooks.ts';
export { integrationRoutes } from './routes.ts';
export { webhookUpkeep } from './upkeep.ts';
