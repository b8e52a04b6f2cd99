/** The task module's public entry: device commands and their outcome. */
export { TaskService, cancelOpenTasks, type Downlink, type EventSink } from './service.ts';
export { taskRoutes } from './routes.ts';
