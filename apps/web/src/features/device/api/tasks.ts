import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  BatchListQuery,
  BatchView,
  CommandBody,
  CommandResult,
  Paged,
  TaskItem,
  TaskListQuery,
} from '@cpc/contracts';
import { get, post } from '@/lib/request';
import { DEVICE_KEY } from './devices';
import { isOpenTask } from '../utils/task-states';

/** Commands (reboot, shutdown) and the tasks they make, one per device (contracts/task.ts). */

export const sendCommand = (body: CommandBody) => post<CommandResult>('/device/command', body);
export const getTasks = (q: TaskListQuery) => get<Paged<TaskItem>>('/device/task/list', { ...q });
export const getBatch = (id: number) => get<BatchView>(`/device/task/batch/${id}`);
export const getBatches = (q: BatchListQuery) => get<Paged<BatchView>>('/device/task/batch/list', { ...q });
export const cancelTask = (id: string) =>
  post<{ id: string; state: string }>(`/device/task/${encodeURIComponent(id)}/cancel`);

export const TASKS_KEY = [...DEVICE_KEY, 'tasks'] as const;
export const BATCHES_KEY = [...DEVICE_KEY, 'batches'] as const;

/**
 * Tasks, kept current by their live events. `followOpen`: also read again every few seconds while a task on the
 * page is unfinished — an event that arrives before the page's first answer has nothing to apply to, and a drawer
 * watching a command must not wait on it.
 */
export const useTasks = (q: TaskListQuery, enabled = true, followOpen = false) =>
  useQuery({
    queryKey: [...TASKS_KEY, q],
    queryFn: () => getTasks(q),
    enabled,
    placeholderData: keepPreviousData,
    refetchInterval: followOpen
      ? (query) => (query.state.data?.list.some((t) => isOpenTask(t.state)) ? OPEN_TASKS_POLL_MS : false)
      : false,
  });

/** How often a drawer reads its unfinished tasks again (a safety net under the live events). */
const OPEN_TASKS_POLL_MS = 3000;

/** A large batch's counts by state; its tasks' events only reach the rows on screen, so it is polled while open. */
export const useBatch = (id: number | null, poll: boolean) =>
  useQuery({
    queryKey: [...DEVICE_KEY, 'batch', id],
    queryFn: () => getBatch(id!),
    enabled: id !== null,
    refetchInterval: poll ? 3000 : false,
  });

/** The account's batches with their counts; the list follows its tasks' events (use-live-devices), read again then. */
export const useBatches = (q: BatchListQuery, enabled: boolean) =>
  useQuery({ queryKey: [...BATCHES_KEY, q], queryFn: () => getBatches(q), enabled, placeholderData: keepPreviousData });

export const useSendCommand = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: sendCommand,
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: TASKS_KEY }),
        client.invalidateQueries({ queryKey: BATCHES_KEY }),
      ]),
  });
};

export const useCancelTask = () => {
  const client = useQueryClient();
  return useMutation({ mutationFn: cancelTask, onSettled: () => client.invalidateQueries({ queryKey: TASKS_KEY }) });
};
