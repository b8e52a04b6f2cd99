import { z } from 'zod';
import { PAGE_NO_MAX } from './device-constants.ts';

/**
 * Device tasks (DESIGN §4, §6): commands sent to devices, one row per device, a batch for many; and the live
 * events a console receives over Server-Sent Events. Paths are under /apiAdmin.
 */

export const TASK_STATES = [
  'queued',
  'sent',
  'delivered',
  'running',
  'succeeded',
  'failed',
  'timeout',
  'expired',
  'canceled',
] as const;
export const taskState = z.enum(TASK_STATES);
export type TaskState = z.infer<typeof taskState>;
/** States a task can still leave: the user may cancel it. */
export const OPEN_TASK_STATES = [
  'queued',
  'sent',
  'delivered',
  'running',
  'timeout',
] as const satisfies readonly TaskState[];
export const FINAL_TASK_STATES = ['succeeded', 'failed', 'expired', 'canceled'] as const satisfies readonly TaskState[];

export const TASK_TYPES = [
  'reboot',
  'shutdown',
  'apply_profile',
  'install_app',
  'uninstall_app',
  'fetch_file',
  'upgrade',
  'push_message',
  'deploy_model',
] as const;
export const taskType = z.enum(TASK_TYPES);
export type TaskType = z.infer<typeof taskType>;

/** The commands of `POST /device/command`; each needs the permission of the same name (`device:reboot`, …). */
export const COMMAND_TYPES = ['reboot', 'shutdown'] as const;
export const commandType = z.enum(COMMAND_TYPES);
export type CommandType = z.infer<typeof commandType>;

export const COMMAND_MAX_DEVICES = 500;
/** How long a command waits for an offline device by default, and the bounds of `expireInSec`. */
export const COMMAND_EXPIRE_DEFAULT_S = 24 * 3600;
export const COMMAND_EXPIRE_MAX_S = 7 * 24 * 3600;

// ids are bigint in the database: a larger number would be refused there, so it is refused here
const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const queryId = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const commandBody = z
  .object({
    deviceIds: z
      .array(id)
      .min(1, 'rule.devicesRequired')
      .max(COMMAND_MAX_DEVICES, 'rule.maxDevices')
      .refine((a) => new Set(a).size === a.length, 'rule.deviceRepeat'),
    type: commandType,
    /** Seconds the command waits for an offline device before it expires. */
    expireInSec: z.number().int().min(1).max(COMMAND_EXPIRE_MAX_S).optional(),
  })
  .strict();
export type CommandBody = z.input<typeof commandBody>;

export const commandResult = z.object({
  /** The batch of a command to several devices; null for one device. */
  batchId: z.number().int().nullable(),
  /** One task per device, in the order of `deviceIds`. */
  taskIds: z.array(z.string()),
});
export type CommandResult = z.infer<typeof commandResult>;

export const taskListQuery = z
  .object({
    pageNo: z.coerce.number().int().min(1).max(PAGE_NO_MAX).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(20),
    deviceId: queryId.optional(),
    batchId: queryId.optional(),
    state: taskState.optional(),
  })
  .strict();
export type TaskListQuery = z.input<typeof taskListQuery>;
/** The query as the server sees it after validation. */
export type TaskListParams = z.output<typeof taskListQuery>;

export const taskItem = z.object({
  id: z.string(),
  deviceId: z.number().int(),
  deviceSn: z.string(),
  deviceName: z.string(),
  batchId: z.number().int().nullable(),
  type: taskType,
  state: taskState,
  progress: z.number().int(),
  /** The step the device reports (issue 15: downloading, installing…; '' when the task has none). */
  stage: z.string(),
  error: z.string(),
  /** Deliveries so far, and the most the server makes before the task fails. */
  attempts: z.number().int(),
  maxAttempts: z.number().int(),
  createdAt: z.string(),
  sentAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  expireAt: z.string(),
});
export type TaskItem = z.infer<typeof taskItem>;

export const batchIdParams = z.object({ id: queryId }).strict();
export const taskIdParams = z.object({ id: z.uuid('rule.taskId') }).strict();

export const batchView = z.object({
  id: z.number().int(),
  type: taskType,
  createdAt: z.string(),
  total: z.number().int(),
  /** Tasks of the batch in each state (every state is present, 0 when none). */
  counts: z.object(
    Object.fromEntries(TASK_STATES.map((s) => [s, z.number().int()])) as { [K in TaskState]: z.ZodNumber },
  ),
});
export type BatchView = z.infer<typeof batchView>;

/** `GET /device/task/batch/list`: the account's batches, newest first, each a BatchView with its counts. */
export const batchListQuery = z
  .object({
    pageNo: z.coerce.number().int().min(1).max(PAGE_NO_MAX).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();
export type BatchListQuery = z.input<typeof batchListQuery>;

export const cancelResult = z.object({ id: z.string(), state: taskState });

// ---------------------------------------------------------------------------------------------------------------
// Live events: `GET /device/events?ticket=…` (text/event-stream). EventSource cannot send an Authorization
// header, so the console first trades its bearer token for a short-lived ticket at `POST /device/events/ticket`.

export const EVENTS_TICKET_TTL_S = 60;
export const eventsTicketResult = z.object({ ticket: z.string(), expiresIn: z.number().int() });
export const eventsQuery = z.object({ ticket: z.string().min(1, 'rule.ticketRequired').max(2000) }).strict();

/** `event: device` — a device of the tenant changed (presence, paper, battery, signal, location, firmware). */
export const liveDeviceEvent = z.object({
  id: z.number().int(),
  sn: z.string(),
  status: z.enum(['online', 'offline']),
  paper: z.enum(['ok', 'out', 'cover-open', 'overheat']),
  battery: z.number().int().nullable(),
  signal: z.number().int().nullable(),
  firmware: z.string(),
  lastSeenAt: z.string().nullable(),
  connectedAt: z.string().nullable(),
  lat: z.number().nullable(),
  lng: z.number().nullable(),
  province: z.string(),
});
export type LiveDeviceEvent = z.infer<typeof liveDeviceEvent>;

/** `event: task` — a task of the tenant changed state or progress. */
export const liveTaskEvent = z.object({
  id: z.string(),
  deviceId: z.number().int(),
  batchId: z.number().int().nullable(),
  type: taskType,
  state: taskState,
  progress: z.number().int(),
  stage: z.string(),
  error: z.string(),
});
export type LiveTaskEvent = z.infer<typeof liveTaskEvent>;

/** `event: identity` — to staff consoles (identity:review): a submission was made, approved or rejected. */
export const liveIdentityEvent = z.object({
  id: z.number().int(),
  tenantId: z.number().int(),
  /** The submission's status after the change (AUTH_STATUS: 2 waiting, 1 approved, 3 rejected). */
  status: z.number().int(),
});
export type LiveIdentityEvent = z.infer<typeof liveIdentityEvent>;

/** `event: menu` — to every console: staff changed the menu (now at this version); read it again. */
export interface LiveMenuEvent {
  version: number;
}

/** `event: message` — to the one user whose messages changed (a new one, or read elsewhere): count them again. */
export interface LiveMessageEvent {
  userId: number;
}

/**
 * `event: department` (no data) — the tenant's department tree changed (added, renamed, moved, deleted): to its
 * consoles that read the tree; they read it again.
 */

/** `event: sim` — SIMs of the tenant changed (data left, state, plan): the traffic query reads them again. */
export interface LiveSimEvent {
  iccids: string[];
}

/**
 * `event: order` — an order changed state (created, paid, fulfilled, closed, refunded): to the tenant's consoles
 * that read orders, and to staff who see every tenant's orders.
 */
export interface LiveOrderEvent {
  id: number;
  orderNo: string;
  tenantId: number;
  state: string;
}

/**
 * `event: workOrder` — a work order changed (opened, edited, replied to, assigned, state): to the tenant's consoles
 * that read work orders (workOrder:view; the list answers within the data scope) and to staff with
 * workOrder:handle (published to the platform tenant too). Internal notes are never announced to the customer.
 */
export interface LiveWorkOrderEvent {
  id: number;
  tenantId: number;
  state: string;
}

/**
 * `event: notice` — an announcement was published, edited or withdrawn (to every console, all tenants); each
 * console reads its list and unread count again, and the server answers each by its audience.
 */
export interface LiveNoticeEvent {
  id: number;
}

/**
 * `event: package` — a firmware, application or AI model package of the tenant was added or removed (issue 15):
 * the lists that show packages read them again.
 */
export interface LivePackageEvent {
  id: number;
  kind: 'firmware' | 'app' | 'model';
}

/** `event: upgrade` — an upgrade release changed (state, wave, counts): its dashboard and the release list read again. */
export interface LiveUpgradeEvent {
  releaseId: number;
  state: string;
}

/** `event: application` — installs or the installed apps and models of devices changed: the lists read again. */
export interface LiveApplicationEvent {
  deviceIds: number[];
}

/** `event: fileAcquisition` — a file request changed (delivered, uploading, ready, failed). */
export interface LiveFileAcquisitionEvent {
  id: number;
  state: string;
}

/** `event: aiLibrary` — a cloud AI job changed (queued, running, done, failed). */
export interface LiveAiLibraryEvent {
  id: number;
  state: string;
}

/**
 * `event: fence` — a fence changed, or a device entered or left one (issue 16): the fence pages and the map read
 * again; an enter/leave carries the device and the event.
 */
export interface LiveFenceEvent {
  id: number;
  deviceId?: number;
  event?: 'enter' | 'leave';
}

/** `event: systemCustom` — a customization profile, its assignment or a device's applied/drifted state changed. */
export interface LiveSystemCustomEvent {
  profileId: number | null;
  deviceIds: number[];
}

/** `event: push` — a push or its per-device delivery changed (sent, delivered, displayed, clicked, expired). */
export interface LivePushEvent {
  id: number;
  state: string;
}

export type LiveEvent =
  | { type: 'device'; data: LiveDeviceEvent }
  | { type: 'task'; data: LiveTaskEvent }
  | { type: 'identity'; data: LiveIdentityEvent }
  | { type: 'permissions'; data: { userIds: number[] } }
  | { type: 'menu'; data: LiveMenuEvent }
  | { type: 'message'; data: LiveMessageEvent }
  | { type: 'department'; data: Record<string, never> }
  | { type: 'sim'; data: LiveSimEvent }
  | { type: 'order'; data: LiveOrderEvent }
  | { type: 'workOrder'; data: LiveWorkOrderEvent }
  | { type: 'notice'; data: LiveNoticeEvent }
  | { type: 'package'; data: LivePackageEvent }
  | { type: 'upgrade'; data: LiveUpgradeEvent }
  | { type: 'application'; data: LiveApplicationEvent }
  | { type: 'fileAcquisition'; data: LiveFileAcquisitionEvent }
  | { type: 'aiLibrary'; data: LiveAiLibraryEvent }
  | { type: 'fence'; data: LiveFenceEvent }
  | { type: 'systemCustom'; data: LiveSystemCustomEvent }
  | { type: 'push'; data: LivePushEvent };
