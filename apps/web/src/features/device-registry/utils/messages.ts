import type { ImportRowError } from '@cpc/contracts/device-registry';
import { IMPORT_MAX_BYTES, IMPORT_MAX_ROWS, MSG } from '@cpc/contracts/device-constants';
import { sayServerMessage, serverFieldErrors, type ServerMessage, type Wording } from '@/lib/server-messages';

type T = (key: string, options?: Record<string, unknown>) => string;

/**
 * The server's import and registration problems come by key (`data.rows[].key`, `data.fields[].key`, with their
 * values); this page words them its own way (its i18n keys below), the rest from the shared catalogue.
 */
const WORDING: Wording = {
  'registry.empty': 'deviceRegistry.message.empty',
  'rule.modelRequired': 'deviceRegistry.message.empty',
  [MSG.sn]: 'deviceRegistry.message.sn',
  [MSG.bindKey]: 'deviceRegistry.message.bindKey',
  [MSG.secret]: 'deviceRegistry.message.secret',
  [MSG.iccid]: 'deviceRegistry.message.iccid',
  [MSG.imei]: 'deviceRegistry.message.imei',
  'registry.unknownModel': 'deviceRegistry.message.unknownModel',
  'registry.duplicate': 'deviceRegistry.message.duplicate',
  'registry.taken': 'deviceRegistry.message.taken',
  'registry.columns': 'deviceRegistry.message.columns',
  'registry.fileEmpty': 'deviceRegistry.message.fileEmpty',
  'registry.notUtf8': 'deviceRegistry.message.notUtf8',
  'registry.header': 'deviceRegistry.message.header',
  'registry.badCsv': 'deviceRegistry.message.badCsv',
  'registry.noRows': 'deviceRegistry.message.noRows',
  'registry.tooManyRows': 'deviceRegistry.message.tooManyRows',
  'upload.tooLargeMb': 'deviceRegistry.message.tooLarge',
  'registry.race': 'deviceRegistry.message.race',
};

/** A problem the server named (a row's, a field's), in the user's language. */
export function sayProblem(m: ServerMessage, t: T): string {
  const withLimits: T = (key, options) =>
    t(key, { maxRows: IMPORT_MAX_ROWS, maxMb: IMPORT_MAX_BYTES / 1024 / 1024, ...options });
  return sayServerMessage(m, withLimits, WORDING);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** What a refused import says: every bad row, or one problem with the file as a whole. */
export type ImportFailure = { kind: 'rows'; rows: ImportRowError[] } | { kind: 'file'; message: string };

export function importFailureOf(err: unknown, t: T): ImportFailure {
  const data = isRecord(err) ? err.data : undefined;
  if (isRecord(data) && Array.isArray(data.rows) && data.rows.length > 0) {
    const rows = data.rows.filter(
      (r): r is ImportRowError =>
        isRecord(r) && typeof r.row === 'number' && typeof r.field === 'string' && typeof r.message === 'string',
    );
    if (rows.length) return { kind: 'rows', rows };
  }
  // a problem of the whole file names the field `file`; any other refusal is said in `msg`, already in the user's language
  const first = serverFieldErrors(err)[0];
  return { kind: 'file', message: first ? sayProblem(first, t) : err instanceof Error ? err.message : String(err) };
}

/** Form fields of the single registration, by the names the server gives them. */
export const REGISTER_FIELDS = ['sn', 'model', 'bindKey', 'secret', 'iccid', 'imei'] as const;
export type RegisterField = (typeof REGISTER_FIELDS)[number];

/** antd `form.setFields` entries for a refused registration; what names no field comes back as `other`. */
export function registerFieldErrors(
  err: unknown,
  t: T,
): { fields: Array<{ name: RegisterField; errors: string[] }>; other: string | null } {
  const fields: Array<{ name: RegisterField; errors: string[] }> = [];
  for (const f of serverFieldErrors(err)) {
    const name = (f.field === 'bind_key' ? 'bindKey' : f.field) as RegisterField;
    if (REGISTER_FIELDS.includes(name)) fields.push({ name, errors: [sayProblem(f, t)] });
  }
  if (fields.length) return { fields, other: null };
  return { fields, other: err instanceof Error ? err.message : String(err) };
}
