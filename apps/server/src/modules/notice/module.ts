import { defineModule } from '../../plugins/module.ts';
import { noticeRoutes, noticeUpkeep } from './index.ts';

/** Notices the platform publishes, and their scheduled publication. */
export const noticeModule = defineModule({
  name: 'notice',
  async setup(app, { db, events }) {
    await app.register(noticeUpkeep, { db, events });
  },
  api: async (api) => {
    const { db, storage, events } = api.core;
    await api.register(noticeRoutes, { db, storage, events });
  },
});
