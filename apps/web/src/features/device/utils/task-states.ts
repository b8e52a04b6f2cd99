import type { TaskState } from '@cpc/contracts';

/*
 * Task states as plain values: contracts/task.ts holds them beside its zod schemas, which the console does not
 * bundle, so they are restated here and checked against the contract's type.
 */

export const TASK_STATE_ORDER = [
  'queued',
  'sent',
  'delivered',
  'running',
  'succeeded',
  'failed',
  'timeout',
  'expired',
  'canceled',
] as const satisfies readonly TaskState[];

/** States a task can still leave: the user may cancel it (contracts: OPEN_TASK_STATES). */
const OPEN: ReadonlySet<TaskState> = new Set<TaskState>(['queued', 'sent', 'delivered', 'running', 'timeout']);
export const isOpenTask = (state: TaskState): boolean => OPEN.has(state);

/** How long a command waits for an offline device (contracts: COMMAND_EXPIRE_DEFAULT_S). */
export const COMMAND_EXPIRE_DEFAULT_S = 24 * 3600;

/** antd Tag colours (preset names follow the theme in light and dark). */
export const TASK_STATE_COLOR: Record<TaskState, string> = {
  queued: 'default',
  sent: 'processing',
  delivered: 'cyan',
  running: 'blue',
  succeeded: 'success',
  failed: 'error',
  timeout: 'warning',
  expired: 'orange',
  canceled: 'default',
};
