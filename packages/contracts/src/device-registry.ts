import { z } from 'zod';
import { BIND_KEY_RULE, ICCID_RULE, MSG, SECRET_RULE, isImei } from './device-constants.ts';
import { deviceStatus, keywordField, pageFields, queryId, snField, textLine } from './device.ts';

/**
 * Device registry (DESIGN §4): factory registration of every device made, one at a time or from a CSV, and
 * reissuing bind keys (staff; `device:register`). Paths are under /apiAdmin.
 *
 * | call | permission | request | data |
 * |---|---|---|---|
 * | GET /system/deviceRegistry/list | device:register (staff) | registryListQuery | { list: RegistryItem[], total } |
 * | POST /system/deviceRegistry/register | device:register (staff) | deviceRegisterBody | RegisterResult |
 * | POST /system/deviceRegistry/import | device:register (staff) | multipart `file` (CSV) | RegisterResult; 400 with `data.rows: ImportRowError[]` |
 * | POST /system/deviceRegistry/bindKey | device:register (staff) | { id } | ReissueBindKeyResult (shown once) |
 */
// ---------------------------------------------------------------------------------------------------------------
// Factory registration (staff; `device:register`)

export const deviceRegisterBody = z
  .object({
    sn: snField,
    /** A model code of the catalogue. */
    model: textLine(32).min(1, 'rule.modelRequired'),
    /** Generated when absent (12 characters, no look-alike letters). */
    bindKey: z.string().trim().regex(BIND_KEY_RULE, MSG.bindKey).optional(),
    /** Generated when absent. */
    secret: z.string().trim().regex(SECRET_RULE, MSG.secret).optional(),
    /** Generated when absent (a China-issued number with a Luhn check digit). */
    iccid: z.string().trim().regex(ICCID_RULE, MSG.iccid).optional(),
    /** Generated when absent (with a Luhn check digit). */
    imei: z.string().trim().refine(isImei, MSG.imei).optional(),
  })
  .strict();
export type DeviceRegisterBody = z.input<typeof deviceRegisterBody>;

/** One registered device as staff see it ONCE: the bind key and secret are never shown again. */
export const registeredDevice = z.object({
  id: z.number().int(),
  sn: z.string(),
  model: z.string(),
  bindKey: z.string(),
  secret: z.string(),
  iccid: z.string(),
  imei: z.string(),
});
export type RegisteredDevice = z.infer<typeof registeredDevice>;

export const registerResult = z.object({ imported: z.number().int(), devices: z.array(registeredDevice) });

/** `POST /system/deviceRegistry/bindKey`: a new bind key for a device (the old one stops working), shown this once. */
export const reissueBindKeyResult = z.object({ id: z.number().int(), sn: z.string(), bindKey: z.string() });
export type ReissueBindKeyResult = z.infer<typeof reissueBindKeyResult>;
export type RegisterResult = z.infer<typeof registerResult>;

/**
 * A refused CSV import answers 400 with `data.rows` (and `data.fields`, with `field` = `row <n>.<column>`).
 * `row` is the line of the file as a spreadsheet numbers it: the header is row 1.
 */
export const importRowError = z.object({
  row: z.number().int(),
  field: z.string(),
  /** In en, for programs. */
  message: z.string(),
  /** Its key in contracts/messages.ts and values: the console says it in its language. */
  key: z.string().optional(),
  params: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
});
export type ImportRowError = z.infer<typeof importRowError>;

export const registryListQuery = z
  .object({
    ...pageFields,
    /** sn, ICCID, IMEI or the owner's account name. */
    keyword: keywordField,
    bound: z.enum(['true', 'false']).optional(),
    modelId: queryId.optional(),
  })
  .strict();
export type RegistryListQuery = z.input<typeof registryListQuery>;

export const registryItem = z.object({
  id: z.number().int(),
  sn: z.string(),
  modelId: z.number().int(),
  modelCode: z.string(),
  modelName: z.string(),
  bound: z.boolean(),
  tenantId: z.number().int().nullable(),
  tenantName: z.string().nullable(),
  boundAt: z.string().nullable(),
  iccid: z.string().nullable(),
  imei: z.string(),
  status: deviceStatus,
  lastSeenAt: z.string().nullable(),
  createdAt: z.string(),
});
export type RegistryItem = z.infer<typeof registryItem>;
