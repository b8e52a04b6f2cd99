import { defineModule } from '../../plugins/module.ts';
import { TaskService, taskRoutes } from './index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Device tasks (other modules enqueue and follow theirs; tests and node-local tools reach them here). */
    tasks: TaskService;
  }
}

/** Device commands and their outcome: acks, progress and results heard on the device bus, the sweep's timeouts. */
export const taskModule = defineModule({
  name: 'task',
  setup(app, { db, events, link, bus, config }) {
    const tasks = new TaskService(db, events, link, {
      ackTimeoutS: config.TASK_ACK_TIMEOUT_S,
      resultTimeoutS: config.TASK_RESULT_TIMEOUT_S,
      retryBackoffS: config.TASK_RETRY_BACKOFF_S,
      onUnwaitedError: (err) => app.log.error({ err }, 'tasks: writing an acknowledgement or a progress report failed'),
    });
    tasks.listenTo(bus);
    app.decorate('tasks', tasks);
  },
  api: async (api) => {
    await api.register(taskRoutes, { tasks: api.tasks });
  },
});
