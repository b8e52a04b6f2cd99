import { defineModule } from '../../plugins/module.ts';
import { latestUnreadNotices, unreadNoticeCount } from '../notice/index.ts';
import { workbenchRoutes } from './index.ts';
import { WorkbenchService } from './service.ts';

/** The workbench: what needs the reader's attention. */
export const workbenchModule = defineModule({
  name: 'workbench',
  api: async (api) => {
    const { db } = api.core;
    const notices = {
      unreadCount: (reader: Parameters<typeof unreadNoticeCount>[1]) => unreadNoticeCount(db, reader),
      latestUnread: (reader: Parameters<typeof latestUnreadNotices>[1], limit: number) =>
        latestUnreadNotices(db, reader, limit),
    };
    await api.register(workbenchRoutes, { workbench: new WorkbenchService(db, notices) });
  },
});
