/** The notice module's public entry: system announcements, and the sweep that announces scheduled ones. */
export { noticeRoutes } from './routes.ts';
export { noticeUpkeep, sweepNotices, NOTICE_SWEEP_MS } from './upkeep.ts';
