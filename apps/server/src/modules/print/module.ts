import { defineModule } from '../../plugins/module.ts';
import { PrintContent, PrintService } from './index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    prints: PrintService;
    printContent: PrintContent;
  }
}

/** Printing (DESIGN §6): jobs, their content, their results heard on the device bus, webhooks on their changes. */
export const printModule = defineModule({
  name: 'print',
  dependencies: ['integration'],
  setup(app, { db, storage, link, bus, config }) {
    const content = new PrintContent(db, storage, {
      maxBytes: config.PRINT_IMAGE_MAX_BYTES,
      timeoutMs: config.PRINT_IMAGE_TIMEOUT_MS,
      maxHeight: 2400,
      allowPrivate: config.OUTBOUND_PRIVATE === 'allow',
    });
    const prints = new PrintService(db, content, link, app.webhooks, {
      ackTimeoutS: config.PRINT_ACK_TIMEOUT_S,
      retryBackoffS: config.PRINT_RETRY_BACKOFF_S,
      maxAttempts: config.PRINT_MAX_ATTEMPTS,
      resultTimeoutS: config.PRINT_RESULT_TIMEOUT_S,
    });
    // the submits and printers' reports still in a group commit are written before the database goes
    app.addHook('onClose', () => prints.drain());
    prints.listenTo(bus);
    app.decorate('printContent', content);
    app.decorate('prints', prints);
  },
});
