/** The task module's public entry: device commands and their outcome. */
export {
  TaskService,
  cancelOpenTasks,
  enqueueTasks,
  type ChangedTask,
  type Downlink,
  type ParamsAtDelivery,
  type TaskListener,
  type TaskSpec,
} from './service.ts';
export { taskRoutes } from './routes.ts';
export type { EventSink } from '../../plugins/live-events.ts';
