import { defineModule } from '../../plugins/module.ts';
import { SystemLogService, systemLogRetention, systemLogRoutes } from './index.ts';

/** The system log: what people did, kept SYSTEM_LOG_RETENTION_DAYS. */
export const systemLogModule = defineModule({
  name: 'system-log',
  async setup(app, { db, config }) {
    await app.register(systemLogRetention, { db, retentionDays: config.SYSTEM_LOG_RETENTION_DAYS });
  },
  api: async (api) => {
    await api.register(systemLogRoutes, { log: new SystemLogService(api.core.db) });
  },
});
