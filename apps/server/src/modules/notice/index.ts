/** The notice module's public entry: system announcements, and the sweep that announces scheduled ones. */
export { noticeRoutes } from './routes.ts';
export { noticeUpkeep, sweepNotices, NOTICE_SWEEP_MS } from './upkeep.ts';
export { unreadNoticeCount, latestUnreadNotices, type Reader as NoticeReader } from './service.ts';
