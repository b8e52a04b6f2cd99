import { randomBytes, randomInt } from 'node:crypto';
import { sql } from 'kysely';
import {
  BIND_KEY_RULE,
  ICCID_RULE,
  MSG,
  SECRET_RULE,
  SN_RULE,
  carrierOfIccid,
  isImei,
  luhnDigit,
} from '@cpc/contracts/device';
import { type ImportRowError, type RegisteredDevice, type RegistryItem } from '@cpc/contracts/device-registry';
import { NO_CONTROL_MSG, hasNoControl } from '@cpc/contracts/validators';
import { isMessageKey as isKey, keyed, renderMessage, type MessageKey, type ParamsArg } from '@cpc/contracts/messages';
import type { Db } from '../../db/database.ts';
import type { Paged } from '@cpc/contracts';
import { AppError, notFound } from '../../plugins/errors.ts';
import { sha256 } from '../../lib/tokens.ts';

/** One device to register at the factory; what is absent is generated. */
export interface RegisterRow {
  sn: string;
  /** A model code of the catalogue (matched without regard to case). */
  model: string;
  bindKey?: string;
  secret?: string;
  iccid?: string;
  imei?: string;
}

// No 0/O, 1/I/L: the key is read off a label and typed by hand.
const KEY_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const randomDigits = (n: number) => Array.from({ length: n }, () => randomInt(0, 10)).join('');

export const newBindKey = () =>
  Array.from({ length: 12 }, () => KEY_ALPHABET[randomInt(0, KEY_ALPHABET.length)]).join('');
export const newSecret = () => randomBytes(24).toString('base64url');
/** A China-issued ICCID (89 86 + issuer) of 20 digits with its Luhn digit. */
export function newIccid(): string {
  const body = `8986${['00', '01', '03'][randomInt(0, 3)]}${randomDigits(13)}`;
  return body + luhnDigit(body);
}
export function newImei(): string {
  const body = `86${randomDigits(12)}`;
  return body + luhnDigit(body);
}

/** Format problems of one row, by field. The single-registration route has the same rules in its zod schema. */
function formatErrors(r: RegisterRow & { row: number }): ImportRowError[] {
  const out: ImportRowError[] = [];
  if (!r.sn) out.push(rowError(r.row, 'sn', 'registry.empty'));
  else if (!SN_RULE.test(r.sn)) out.push(rowError(r.row, 'sn', MSG.sn));
  if (!r.model) out.push(rowError(r.row, 'model', 'registry.empty'));
  else if (!hasNoControl(r.model)) out.push(rowError(r.row, 'model', NO_CONTROL_MSG));
  if (r.bindKey !== undefined && !BIND_KEY_RULE.test(r.bindKey)) out.push(rowError(r.row, 'bind_key', MSG.bindKey));
  if (r.secret !== undefined && !SECRET_RULE.test(r.secret)) out.push(rowError(r.row, 'secret', MSG.secret));
  if (r.iccid !== undefined && !ICCID_RULE.test(r.iccid)) out.push(rowError(r.row, 'iccid', MSG.iccid));
  if (r.imei !== undefined && !isImei(r.imei)) out.push(rowError(r.row, 'imei', MSG.imei));
  return out;
}

/** A problem of one row: the en message for programs, its key and values for the console. */
export function rowError<K extends MessageKey>(
  row: number,
  field: string,
  key: K,
  ...[params]: ParamsArg<K>
): ImportRowError {
  const values = (params ?? undefined) as Record<string, string | number> | undefined;
  return { row, field, message: renderMessage('en', key, values), key, ...(values ? { params: values } : {}) };
}

/**
 * Every problem of a batch, each naming its row (1-based position, or the file line when given) and field:
 * formats, unknown models, repeats inside the batch and serial numbers / ICCIDs / IMEIs already registered.
 */
export async function checkRows(
  db: Db,
  rows: Array<RegisterRow & { row: number }>,
): Promise<{ errors: ImportRowError[]; models: Map<string, { id: number; code: string }> }> {
  const errors: ImportRowError[] = [];
  for (const r of rows) errors.push(...formatErrors(r));

  const codes = [...new Set(rows.map((r) => r.model.toLowerCase()).filter(Boolean))];
  const modelRows = codes.length
    ? await db
        .selectFrom('device_models')
        .select(['id', 'code'])
        .where(sql<boolean>`lower(code) = any(${codes}::text[])`)
        .execute()
    : [];
  const models = new Map(modelRows.map((m) => [m.code.toLowerCase(), m]));
  for (const r of rows)
    if (r.model && hasNoControl(r.model) && !models.has(r.model.toLowerCase()))
      errors.push(rowError(r.row, 'model', 'registry.unknownModel', { code: r.model }));

  const repeats = (field: string, key: (r: RegisterRow) => string | undefined) => {
    const first = new Map<string, number>();
    for (const r of rows) {
      const k = key(r);
      if (!k) continue;
      const seen = first.get(k);
      if (seen !== undefined) errors.push(rowError(r.row, field, 'registry.duplicate', { row: seen }));
      else first.set(k, r.row);
    }
    return [...first.keys()];
  };
  const sns = repeats('sn', (r) => r.sn?.toLowerCase());
  const iccids = repeats('iccid', (r) => r.iccid);
  const imeis = repeats('imei', (r) => r.imei);

  const [takenSn, takenIccid, takenImei] = await Promise.all([
    sns.length
      ? db
          .selectFrom('devices')
          .select(sql<string>`lower(sn)`.as('v'))
          .where(sql<boolean>`lower(sn) = any(${sns}::text[])`)
          .execute()
      : [],
    iccids.length
      ? db
          .selectFrom('devices')
          .select('iccid as v')
          .where(sql<boolean>`iccid = any(${iccids}::text[])`)
          .union(
            db
              .selectFrom('sims')
              .select('iccid as v')
              .where(sql<boolean>`iccid = any(${iccids}::text[])`),
          )
          .execute()
      : [],
    imeis.length
      ? db
          .selectFrom('devices')
          .select('imei as v')
          .where(sql<boolean>`imei = any(${imeis}::text[])`)
          .execute()
      : [],
  ]);
  const taken = (field: string, values: Array<{ v: string | null }>, key: (r: RegisterRow) => string | undefined) => {
    const set = new Set(values.map((x) => x.v));
    for (const r of rows) if (key(r) && set.has(key(r)!)) errors.push(rowError(r.row, field, 'registry.taken'));
  };
  taken('sn', takenSn, (r) => r.sn?.toLowerCase());
  taken('iccid', takenIccid, (r) => r.iccid);
  taken('imei', takenImei, (r) => r.imei);

  return { errors: sortRowErrors(errors), models };
}

const FIELD_ORDER = ['row', 'sn', 'model', 'bind_key', 'secret', 'iccid', 'imei'];
/** By row, then in the order of the file's columns. */
export const sortRowErrors = (errors: ImportRowError[]) =>
  [...errors].sort((a, b) => a.row - b.row || FIELD_ORDER.indexOf(a.field) - FIELD_ORDER.indexOf(b.field));

/** The 400 of a refused batch: every row error in `data.rows`, the first few in the message. */
export function rowErrors(errors: ImportRowError[]): AppError {
  const said = (e: ImportRowError) => (e.key && isKey(e.key) ? { key: e.key, params: e.params } : e.message);
  const shown = errors
    .slice(0, 5)
    .map((e) => keyed('registry.rowProblem', { row: e.row, column: e.field, why: said(e) }));
  const more = errors.length > shown.length ? [keyed('registry.more', { n: errors.length - shown.length })] : [];
  return new AppError(
    400,
    'registry.nothingImported',
    { rows: [...shown, ...more] },
    {
      data: {
        fields: errors.map((e) => ({
          field: `row ${e.row}.${e.field}`,
          message: e.message,
          ...(e.key ? { key: e.key } : {}),
          ...(e.params ? { params: e.params } : {}),
        })),
        rows: errors,
      },
    },
  );
}

/**
 * A new bind key for a registered device, bound or not (a label lost, or the key an unbinding owner was given
 * lost on the way): the previous key stops working. Answered this once; only its hash is kept.
 */
export async function reissueBindKey(db: Db, id: number): Promise<{ id: number; sn: string; bindKey: string }> {
  const bindKey = newBindKey();
  const row = await db
    .updateTable('devices')
    .set({ bind_key_hash: sha256(bindKey) })
    .where('id', '=', id)
    .returning(['id', 'sn'])
    .executeTakeFirst();
  if (!row) throw notFound('device');
  return { id: row.id, sn: row.sn, bindKey };
}

const CHUNK = 1000;

/**
 * Factory registration, all or nothing: checks every row, generates what is absent, stores the bind key's
 * sha256 only, creates each device's SIM row, and returns the keys and secrets — the only time they are shown.
 * Also the way tests and the simulator put devices in the database.
 */
export async function registerDevices(db: Db, input: RegisterRow[]): Promise<RegisteredDevice[]> {
  const rows = input.map((r, i) => ({ ...r, row: (r as { row?: number }).row ?? i + 1 }));
  const { errors, models } = await checkRows(db, rows);
  if (errors.length) throw rowErrors(errors);

  const filled = rows.map((r) => ({
    sn: r.sn,
    model: models.get(r.model.toLowerCase())!,
    bindKey: r.bindKey ?? newBindKey(),
    secret: r.secret ?? newSecret(),
    iccid: r.iccid ?? newIccid(),
    imei: r.imei ?? newImei(),
  }));
  try {
    return await db.transaction().execute(async (trx) => {
      const out: RegisteredDevice[] = [];
      for (let i = 0; i < filled.length; i += CHUNK) {
        const part = filled.slice(i, i + CHUNK);
        const ids = await trx
          .insertInto('devices')
          .values(
            part.map((d) => ({
              sn: d.sn,
              model_id: d.model.id,
              bind_key_hash: sha256(d.bindKey),
              secret: d.secret,
              iccid: d.iccid,
              imei: d.imei,
              bound_at: null,
              group_id: null,
              connected_at: null,
              last_seen_at: null,
              battery: null,
              signal: null,
              lat: null,
              lng: null,
              located_at: null,
              tenant_id: null,
            })),
          )
          .returning(['id', 'sn'])
          .execute();
        const idBySn = new Map(ids.map((x) => [x.sn, x.id]));
        await trx
          .insertInto('sims')
          .values(
            part.map((d) => ({
              iccid: d.iccid,
              device_id: idBySn.get(d.sn)!,
              tenant_id: null,
              carrier: carrierOfIccid(d.iccid),
              plan_total_mb: 0,
              used_mb: 0,
              expires_at: null,
            })),
          )
          .execute();
        for (const d of part)
          out.push({
            id: idBySn.get(d.sn)!,
            sn: d.sn,
            model: d.model.code,
            bindKey: d.bindKey,
            secret: d.secret,
            iccid: d.iccid,
            imei: d.imei,
          });
      }
      return out;
    });
  } catch (e) {
    // Another registration won the race for a serial number or ICCID between the check and the insert.
    if ((e as { code?: string }).code === '23505') throw new AppError(400, 'registry.race');
    throw e;
  }
}

const likeOf = (keyword: string) => `%${keyword.replace(/[\\%_]/g, '\\$&')}%`;
const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

/** Every device made, bound or not, with its owner's account name. */
export async function listRegistry(
  db: Db,
  q: { pageNo: number; pageSize: number; keyword?: string; bound?: 'true' | 'false'; modelId?: number },
): Promise<Paged<RegistryItem>> {
  let query = db
    .selectFrom('devices as d')
    .innerJoin('device_models as m', 'm.id', 'd.model_id')
    .leftJoin('tenants as t', 't.id', 'd.tenant_id');
  if (q.bound === 'true') query = query.where('d.tenant_id', 'is not', null);
  if (q.bound === 'false') query = query.where('d.tenant_id', 'is', null);
  if (q.modelId) query = query.where('d.model_id', '=', q.modelId);
  if (q.keyword) {
    const like = likeOf(q.keyword);
    query = query.where((eb) =>
      eb.or([
        eb('d.sn', 'ilike', like),
        eb('d.iccid', '=', q.keyword!),
        eb('d.imei', '=', q.keyword!),
        eb('t.name', 'ilike', like),
      ]),
    );
  }
  const [rows, total] = await Promise.all([
    query
      .select([
        'd.id',
        'd.sn',
        'd.model_id',
        'm.code',
        'm.name as model_name',
        'd.tenant_id',
        't.name as tenant_name',
        'd.bound_at',
        'd.iccid',
        'd.imei',
        'd.status',
        'd.last_seen_at',
        'd.created_at',
      ])
      .orderBy('d.id', 'desc')
      .limit(q.pageSize)
      .offset((q.pageNo - 1) * q.pageSize)
      .execute(),
    query.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    list: rows.map((r) => ({
      id: r.id,
      sn: r.sn,
      modelId: r.model_id,
      modelCode: r.code,
      modelName: r.model_name,
      bound: r.tenant_id !== null,
      tenantId: r.tenant_id,
      tenantName: r.tenant_name,
      boundAt: iso(r.bound_at),
      iccid: r.iccid,
      imei: r.imei,
      status: r.status,
      lastSeenAt: iso(r.last_seen_at),
      createdAt: r.created_at.toISOString(),
    })),
    total: Number(total.n),
  };
}
