/** The system-log module's public entry: reading the log (list, CSV export) and pruning it past its retention. */
export { systemLogRoutes } from './routes.ts';
export { SystemLogService } from './service.ts';
export { pruneSystemLog, systemLogRetention } from './retention.ts';
export { csvLine } from './csv.ts';
