import type { ImportRowError } from '@cpc/contracts/device-registry';
import { IMPORT_MAX_BYTES, IMPORT_MAX_ROWS, MSG } from '@cpc/contracts/device-constants';

type T = (key: string, options?: Record<string, unknown>) => string;

/**
 * The server's import and registration messages (device-model/registry.ts, csv.ts), in the user's language.
 * A message this list does not know is shown as the server wrote it.
 */
const KNOWN: Array<[RegExp, string]> = [
  [/^cannot be empty$/, 'deviceRegistry.message.empty'],
  [/^model cannot be empty$/, 'deviceRegistry.message.empty'],
  [new RegExp(`^${literal(MSG.sn)}$`), 'deviceRegistry.message.sn'],
  [new RegExp(`^${literal(MSG.bindKey)}$`), 'deviceRegistry.message.bindKey'],
  [new RegExp(`^${literal(MSG.secret)}$`), 'deviceRegistry.message.secret'],
  [new RegExp(`^${literal(MSG.iccid)}$`), 'deviceRegistry.message.iccid'],
  [new RegExp(`^${literal(MSG.imei)}$`), 'deviceRegistry.message.imei'],
  [/^unknown model code "(.*)"$/, 'deviceRegistry.message.unknownModel'],
  [/^duplicate of row (\d+)$/, 'deviceRegistry.message.duplicate'],
  [/^already registered$/, 'deviceRegistry.message.taken'],
  [/^expected (\d+) columns, found (\d+)$/, 'deviceRegistry.message.columns'],
  [/^the file is empty$/, 'deviceRegistry.message.fileEmpty'],
  [/^must be a UTF-8 CSV text file/, 'deviceRegistry.message.notUtf8'],
  [/^the first line must be the header/, 'deviceRegistry.message.header'],
  [/^not a valid CSV at line (\d+|\?)/, 'deviceRegistry.message.badCsv'],
  [/^no devices in the file$/, 'deviceRegistry.message.noRows'],
  [/^at most \d+ devices per file$/, 'deviceRegistry.message.tooManyRows'],
  [/^file must not exceed/, 'deviceRegistry.message.tooLarge'],
  [/registered at the same time; try again$/, 'deviceRegistry.message.race'],
];

function literal(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function translateMessage(message: string, t: T): string {
  const text = message.replace(/^(?:file|sn|model|bindKey|secret|iccid|imei): /, '');
  for (const [pattern, key] of KNOWN) {
    const m = text.match(pattern);
    if (m) return t(key, { a: m[1], b: m[2], maxRows: IMPORT_MAX_ROWS, maxMb: IMPORT_MAX_BYTES / 1024 / 1024 });
  }
  return message;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** What a refused import says: every bad row, or one problem with the file as a whole. */
export type ImportFailure = { kind: 'rows'; rows: ImportRowError[] } | { kind: 'file'; message: string };

export function importFailureOf(err: unknown, t: T): ImportFailure {
  const data = isRecord(err) ? err.data : undefined;
  if (isRecord(data) && Array.isArray(data.rows) && data.rows.length > 0) {
    const rows = data.rows.filter((r): r is ImportRowError => isRecord(r) && typeof r.row === 'number' && typeof r.field === 'string' && typeof r.message === 'string');
    if (rows.length) return { kind: 'rows', rows };
  }
  const fields = isRecord(data) && Array.isArray(data.fields) ? data.fields : [];
  const first = fields.find((f): f is { field: string; message: string } => isRecord(f) && typeof f.message === 'string');
  const message = first ? first.message : err instanceof Error ? err.message : String(err);
  return { kind: 'file', message: translateMessage(message, t) };
}

/** Form fields of the single registration, by the names the server gives them. */
export const REGISTER_FIELDS = ['sn', 'model', 'bindKey', 'secret', 'iccid', 'imei'] as const;
export type RegisterField = (typeof REGISTER_FIELDS)[number];

/** antd `form.setFields` entries for a refused registration; what names no field comes back as `other`. */
export function registerFieldErrors(err: unknown, t: T): { fields: Array<{ name: RegisterField; errors: string[] }>; other: string | null } {
  const data = isRecord(err) ? err.data : undefined;
  const list = isRecord(data) && Array.isArray(data.fields) ? data.fields : [];
  const fields: Array<{ name: RegisterField; errors: string[] }> = [];
  for (const f of list) {
    if (!isRecord(f) || typeof f.field !== 'string' || typeof f.message !== 'string') continue;
    const name = (f.field === 'bind_key' ? 'bindKey' : f.field) as RegisterField;
    if (REGISTER_FIELDS.includes(name)) fields.push({ name, errors: [translateMessage(f.message, t)] });
  }
  if (fields.length) return { fields, other: null };
  return { fields, other: err instanceof Error ? translateMessage(err.message, t) : String(err) };
}
