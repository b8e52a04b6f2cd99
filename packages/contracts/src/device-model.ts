import { z } from 'zod';
import { CAPABILITY_RULE, MODEL_CODE_RULE, MSG } from './device-constants.ts';
import { id, keywordField, modelKind, pageFields, textLine } from './device.ts';

/**
 * Device models (DESIGN §4): the platform's catalogue of printer and terminal models. Staff manage it
 * (`device:model:manage`); customers read its options for filters and forms. Paths are under /apiAdmin.
 *
 * | call | permission | request | data |
 * |---|---|---|---|
 * | GET /device/model/options | device:view | – | DeviceModelOption[] |
 * | GET /system/deviceModel/list | device:model:manage (staff) | deviceModelListQuery | { list: DeviceModelView[], total } |
 * | POST /system/deviceModel/add, /edit | device:model:manage (staff) | deviceModelBody, deviceModelEditBody | DeviceModelView |
 * | POST /system/deviceModel/delete | device:model:manage (staff) | { id } | null (400 while devices use it) |
 */
// ---------------------------------------------------------------------------------------------------------------
// Device models (staff catalogue; `device:model:manage`)

export const deviceModelBody = z
  .object({
    code: z.string().trim().regex(MODEL_CODE_RULE, MSG.modelCode),
    name: textLine(50).min(1, 'rule.nameRequired'),
    kind: modelKind,
    /** Paper roll width in mm; 0 for a terminal without a printer. */
    paperWidthMm: z.number().int().min(0).max(300).default(58),
    capabilities: z
      .array(z.string().trim().regex(CAPABILITY_RULE, MSG.capability))
      .max(30)
      .default([])
      .refine((c) => new Set(c).size === c.length, 'rule.capabilityRepeat'),
  })
  .strict();
export type DeviceModelBody = z.input<typeof deviceModelBody>;

export const deviceModelEditBody = z
  .object({
    id,
    code: z.string().trim().regex(MODEL_CODE_RULE, MSG.modelCode).optional(),
    name: textLine(50).min(1, 'rule.nameRequired').optional(),
    kind: modelKind.optional(),
    paperWidthMm: z.number().int().min(0).max(300).optional(),
    capabilities: z
      .array(z.string().trim().regex(CAPABILITY_RULE, MSG.capability))
      .max(30)
      .refine((c) => new Set(c).size === c.length, 'rule.capabilityRepeat')
      .optional(),
  })
  .strict();
export type DeviceModelEditBody = z.input<typeof deviceModelEditBody>;

export const deviceModelView = z.object({
  id: z.number().int(),
  code: z.string(),
  name: z.string(),
  kind: modelKind,
  paperWidthMm: z.number().int(),
  capabilities: z.array(z.string()),
  /** Registered devices of this model (bound or not). */
  deviceCount: z.number().int(),
  createdAt: z.string(),
});
export type DeviceModelView = z.infer<typeof deviceModelView>;

export const deviceModelListQuery = z
  .object({ ...pageFields, keyword: keywordField, kind: modelKind.optional() })
  .strict();
export type DeviceModelListQuery = z.input<typeof deviceModelListQuery>;

/** The catalogue as customers see it, for filters and forms (`GET /device/model/options`). */
export const deviceModelOption = z.object({
  id: z.number().int(),
  code: z.string(),
  name: z.string(),
  kind: modelKind,
  paperWidthMm: z.number().int(),
});
export type DeviceModelOption = z.infer<typeof deviceModelOption>;
