import { z } from 'zod';
import {
  DEVICE_SORTS,
  DEVICE_STATUSES,
  MODEL_KINDS,
  MSG,
  PAGE_NO_MAX,
  PAPER_STATES,
  SIM_STATES,
  SN_RULE,
} from './device-constants.ts';
import { NO_CONTROL_MSG, hasNoControl, hasNoControlButLineBreaks } from './validators.ts';

/**
 * Devices (DESIGN §4, §6): binding, groups, the fleet list, detail, telemetry and map data (customers). Paths are under /apiAdmin; every answer is the
 * `{ code, msg, data }` envelope and `data` is what the schema named here describes.
 * Every id a customer sends is checked against its tenant on the server; another tenant's id answers 404.
 *
 * | call | permission | request | data |
 * |---|---|---|---|
 * | GET /device/list | device:view | deviceListQuery | { list: DeviceListItem[], total } |
 * | GET /device/:id | device:view | deviceIdParams | DeviceDetail |
 * | GET /device/:id/telemetry | device:view | telemetryQuery | TelemetrySeries |
 * | GET /device/map | device:view | deviceMapQuery | DeviceMapData |
 * | POST /device/bind | device:bind | deviceBindBody | DeviceListItem |
 * | POST /device/unbind | device:bind | { id } | DeviceUnbindResult (the new bind key, shown once) |
 * | POST /device/edit | device:edit | deviceEditBody | DeviceListItem |
 * | POST /device/move | device:edit | deviceMoveBody | { moved } |
 * | GET /device/group/tree | device:view | – | GroupTree |
 * | POST /device/group/add, /device/group/edit | device:group | groupAddBody, groupEditBody | GroupView |
 * | POST /device/group/delete | device:group | { id } | GroupDeleteResult |
 */

export * from './device-constants.ts';

export const deviceStatus = z.enum(DEVICE_STATUSES);
export const paperState = z.enum(PAPER_STATES);
export const modelKind = z.enum(MODEL_KINDS);
export const simState = z.enum(SIM_STATES);
export type DeviceStatus = z.infer<typeof deviceStatus>;
export type PaperState = z.infer<typeof paperState>;
export type ModelKind = z.infer<typeof modelKind>;
export type SimState = z.infer<typeof simState>;

export const snField = z.string().trim().regex(SN_RULE, MSG.sn);
// ids are bigint in the database: a larger number would be refused there, so it is refused here
export const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
export const queryId = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
export const pageFields = {
  pageNo: z.coerce.number().int().min(1).max(PAGE_NO_MAX).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
};
/** One line of text (a name, a search): trimmed, no control characters (PostgreSQL refuses NUL; the rest is invisible). */
export const textLine = (max: number) =>
  z.string().trim().max(max, 'rule.maxChars').refine(hasNoControl, NO_CONTROL_MSG);
export const keywordField = textLine(50).optional();

export const idBody = z.object({ id }).strict();
export type IdBody = z.infer<typeof idBody>;

// ---------------------------------------------------------------------------------------------------------------
// Binding and editing (customers)

const nameField = textLine(30);
/** A remark may span lines (a text area); other control characters are refused. */
const remarkField = z.string().trim().max(200, 'rule.maxChars').refine(hasNoControlButLineBreaks, NO_CONTROL_MSG);

/**
 * `POST /device/bind`. The key is checked before anything else is said about the device: an unknown serial
 * number and a wrong key give the same answer, and only the right key learns that another account holds it.
 */
export const deviceBindBody = z
  .object({
    sn: snField,
    bindKey: textLine(64).min(1, 'rule.bindKeyRequired'),
    name: nameField.optional(),
    groupId: id.nullable().optional(),
  })
  .strict();
export type DeviceBindBody = z.input<typeof deviceBindBody>;

/**
 * `POST /device/unbind`: the device goes back to the unbound pool with its name, remark and group cleared and
 * its unfinished tasks canceled. A bind key is used once: the one that bound it stops working and the answer
 * carries a new one, shown this once, for the owner to hand to the next owner.
 */
export const deviceUnbindBody = idBody;
export const deviceUnbindResult = z.object({ sn: z.string(), bindKey: z.string() });
export type DeviceUnbindResult = z.infer<typeof deviceUnbindResult>;

export const deviceEditBody = z
  .object({
    id,
    name: nameField.optional(),
    remark: remarkField.optional(),
    /** The device's department (issue 12), null for none; needs the `all` data scope. */
    departmentId: id.nullable().optional(),
  })
  .strict()
  .refine((b) => b.name !== undefined || b.remark !== undefined || b.departmentId !== undefined, {
    path: ['name'],
    message: 'rule.nameOrRemark',
  });
export type DeviceEditBody = z.input<typeof deviceEditBody>;

/** `POST /device/move`: one or many devices into a group, or out of every group with `groupId: null`. */
export const deviceMoveBody = z
  .object({
    ids: z
      .array(id)
      .min(1, 'rule.devicesRequired')
      .max(500)
      .refine((a) => new Set(a).size === a.length, 'rule.deviceRepeat'),
    groupId: id.nullable(),
  })
  .strict();
export type DeviceMoveBody = z.input<typeof deviceMoveBody>;
export const moveResult = z.object({ moved: z.number().int() });

// ---------------------------------------------------------------------------------------------------------------
// Groups (customers): a tree per tenant, unique names among siblings, no cycles.

export const groupAddBody = z
  .object({
    name: textLine(30).min(1, 'rule.nameRequired'),
    parentId: id.nullable().default(null),
    sort: z.number().int().min(0).max(9999).default(0),
  })
  .strict();
export type GroupAddBody = z.input<typeof groupAddBody>;

export const groupEditBody = z
  .object({
    id,
    name: textLine(30).min(1, 'rule.nameRequired').optional(),
    /** null moves the group to the top level. */
    parentId: id.nullable().optional(),
    sort: z.number().int().min(0).max(9999).optional(),
  })
  .strict();
export type GroupEditBody = z.input<typeof groupEditBody>;

export interface GroupNode {
  id: number;
  name: string;
  parentId: number | null;
  sort: number;
  /** Devices in this group and every group below it. */
  deviceCount: number;
  onlineCount: number;
  children: GroupNode[];
}
export const groupNode: z.ZodType<GroupNode> = z.lazy(() =>
  z.object({
    id: z.number().int(),
    name: z.string(),
    parentId: z.number().int().nullable(),
    sort: z.number().int(),
    deviceCount: z.number().int(),
    onlineCount: z.number().int(),
    children: z.array(groupNode),
  }),
);
export const groupTree = z.object({
  tree: z.array(groupNode),
  /** All the tenant's devices, and those in no group. */
  total: z.number().int(),
  ungrouped: z.number().int(),
});
export type GroupTree = z.infer<typeof groupTree>;

export const groupView = z.object({
  id: z.number().int(),
  name: z.string(),
  parentId: z.number().int().nullable(),
  sort: z.number().int(),
});
export type GroupView = z.infer<typeof groupView>;

/** Deleting a group deletes the groups below it too; their devices become ungrouped, never deleted. */
export const groupDeleteResult = z.object({ deletedGroups: z.number().int(), ungroupedDevices: z.number().int() });
export type GroupDeleteResult = z.infer<typeof groupDeleteResult>;

// ---------------------------------------------------------------------------------------------------------------
// The fleet list, detail, telemetry, map (customers; `device:view`)

export const deviceListQuery = z
  .object({
    ...pageFields,
    status: deviceStatus.optional(),
    /** A group and every group below it; 0 = devices in no group. */
    groupId: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    /** A department and every department below it (issue 12). */
    departmentId: queryId.optional(),
    modelId: queryId.optional(),
    /** Part of the serial number or the name. */
    keyword: keywordField,
    paper: paperState.optional(),
    /**
     * Default order: the most recently bound first. Empty values sort last either way, except that a device
     * never seen counts as the longest silent (first by lastSeen ascending).
     */
    sort: z.enum(DEVICE_SORTS).optional(),
    order: z.enum(['asc', 'desc']).default('asc'),
  })
  .strict();
export type DeviceListQuery = z.input<typeof deviceListQuery>;

export const deviceListItem = z.object({
  id: z.number().int(),
  sn: z.string(),
  name: z.string(),
  remark: z.string(),
  modelId: z.number().int(),
  modelName: z.string(),
  modelKind: modelKind,
  groupId: z.number().int().nullable(),
  groupName: z.string().nullable(),
  /** The department the device is filed under (issue 12), null for none. */
  departmentId: z.number().int().nullable(),
  departmentName: z.string().nullable(),
  status: deviceStatus,
  paper: paperState,
  /** 0-100, null until the device reports it. */
  battery: z.number().int().nullable(),
  signal: z.number().int().nullable(),
  firmware: z.string(),
  /** Plan total minus used, MB (2 decimals); null without a SIM. */
  simDataLeftMb: z.number().nullable(),
  /** The SIM's data plan, MB; 0 when it has none (the console says "no plan"); null without a SIM. */
  simPlanMb: z.number().nullable(),
  simState: simState.nullable(),
  lastSeenAt: z.string().nullable(),
  /** Since when the current connection is up; null while offline. */
  connectedAt: z.string().nullable(),
  province: z.string(),
  boundAt: z.string().nullable(),
});
export type DeviceListItem = z.infer<typeof deviceListItem>;

export const deviceIdParams = z.object({ id: queryId }).strict();

export const simView = z.object({
  iccid: z.string(),
  msisdn: z.string(),
  carrier: z.string(),
  planTotalMb: z.number(),
  usedMb: z.number(),
  leftMb: z.number(),
  expiresAt: z.string().nullable(),
  state: simState,
});
export type SimView = z.infer<typeof simView>;

export const statusChange = z.object({ status: deviceStatus, reason: z.string(), at: z.string() });
export type StatusChange = z.infer<typeof statusChange>;

export const deviceDetail = deviceListItem.extend({
  imei: z.string(),
  iccid: z.string().nullable(),
  heartbeatS: z.number().int(),
  model: z.object({
    id: z.number().int(),
    code: z.string(),
    name: z.string(),
    kind: modelKind,
    paperWidthMm: z.number().int(),
    capabilities: z.array(z.string()),
  }),
  location: z.object({ lat: z.number(), lng: z.number(), at: z.string().nullable() }).nullable(),
  sim: simView.nullable(),
  /** The latest online/offline changes while this account held the device, newest first (at most 20). */
  recentStatus: z.array(statusChange),
});
export type DeviceDetail = z.infer<typeof deviceDetail>;

/** `from`/`to`: ISO date-times; default the last 24 hours, at most TELEMETRY_MAX_DAYS. */
export const telemetryQuery = z
  .object({
    from: z.iso.datetime({ offset: true, message: 'rule.isoDateTime' }).optional(),
    to: z.iso.datetime({ offset: true, message: 'rule.isoDateTime' }).optional(),
  })
  .strict();
export type TelemetryQuery = z.input<typeof telemetryQuery>;

export const telemetryPoint = z.object({
  at: z.string(),
  battery: z.number().nullable(),
  signal: z.number().nullable(),
  /** The SIM's used counter (MB) at that time. */
  usedMb: z.number().nullable(),
});
export const telemetrySeries = z.object({
  from: z.string(),
  to: z.string(),
  /** Samples are averaged into buckets of this length (the last used counter of each bucket is kept). */
  bucketSeconds: z.number().int(),
  points: z.array(telemetryPoint),
});
export type TelemetrySeries = z.infer<typeof telemetrySeries>;

export const deviceMapQuery = z
  .object({
    status: deviceStatus.optional(),
    groupId: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  })
  .strict();
export type DeviceMapQuery = z.input<typeof deviceMapQuery>;

export const mapDevice = z.object({
  id: z.number().int(),
  sn: z.string(),
  name: z.string(),
  status: deviceStatus,
  paper: paperState,
  lat: z.number(),
  lng: z.number(),
});
export type MapDevice = z.infer<typeof mapDevice>;

export const provinceCount = z.object({ province: z.string(), total: z.number().int(), online: z.number().int() });
export type ProvinceCount = z.infer<typeof provinceCount>;

/** Every located device of the tenant (no paging) and the device count per province, with the same filters. */
export const deviceMapData = z.object({ list: z.array(mapDevice), provinces: z.array(provinceCount) });
export type DeviceMapData = z.infer<typeof deviceMapData>;
