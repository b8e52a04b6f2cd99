import { defineModule } from '../../plugins/module.ts';
import { describeMailTarget, inboxMail, InboxMailer, inboxRoutes, listenForDeviceFaults } from './index.ts';

/** The message centre: messages, device-fault episodes heard on the device bus, and its mail (once across nodes). */
export const inboxModule = defineModule({
  name: 'inbox',
  async setup(app, { db, events, bus, config, origin }) {
    listenForDeviceFaults(bus, db, events);
    // SMTP_URL, else the outbox file
    const target = { smtpUrl: config.SMTP_URL, dataDir: config.dataDir };
    await app.register(inboxMail, {
      mailer: new InboxMailer(
        db,
        { ...target, from: config.MAIL_FROM, publicUrl: origin },
        app.log.child({ module: 'inbox' }),
      ),
      everyMs: config.MAIL_INTERVAL_MS,
      target: describeMailTarget(target),
    });
  },
  api: async (api) => {
    await api.register(inboxRoutes, { db: api.core.db, events: api.core.events });
  },
});
