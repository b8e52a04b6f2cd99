import { randomBytes, randomInt } from 'node:crypto';
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
import { changedFields } from '../../lib/audit.ts';
import { sha256 } from '../../lib/tokens.ts';
import { DeviceRegistryRepository, type RegistryQuery } from './repository.ts';

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
async function checkRows(
  repo: DeviceRegistryRepository,
  rows: Array<RegisterRow & { row: number }>,
): Promise<{ errors: ImportRowError[]; models: Map<string, { id: number; code: string }> }> {
  const errors: ImportRowError[] = [];
  for (const r of rows) errors.push(...formatErrors(r));

  const codes = [...new Set(rows.map((r) => r.model.toLowerCase()).filter(Boolean))];
  const modelRows = codes.length ? await repo.modelsByCode(codes) : [];
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
    sns.length ? repo.takenSns(sns) : [],
    iccids.length ? repo.takenIccids(iccids) : [],
    imeis.length ? repo.takenImeis(imeis) : [],
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

/** The body's names of the file's columns where they differ. */
const CSV_FIELD: Record<string, string> = { bind_key: 'bindKey' };

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

const CHUNK = 1000;

/** A row checked and completed: what was absent generated. */
interface FilledRow {
  sn: string;
  model: { id: number; code: string };
  bindKey: string;
  secret: string;
  iccid: string;
  imei: string;
}

/** Stores one chunk of devices and their SIMs (the bind key's sha256 only); answers them as registered. */
async function insertChunk(tx: DeviceRegistryRepository, part: FilledRow[]): Promise<RegisteredDevice[]> {
  const ids = await tx.insertDevices(
    part.map((d) => ({
      sn: d.sn,
      model_id: d.model.id,
      bind_key_hash: sha256(d.bindKey),
      secret: d.secret,
      iccid: d.iccid,
      imei: d.imei,
    })),
  );
  const idBySn = new Map(ids.map((x) => [x.sn, x.id]));
  await tx.insertSims(
    part.map((d) => ({ iccid: d.iccid, device_id: idBySn.get(d.sn)!, carrier: carrierOfIccid(d.iccid) })),
  );
  return part.map((d) => ({
    id: idBySn.get(d.sn)!,
    sn: d.sn,
    model: d.model.code,
    bindKey: d.bindKey,
    secret: d.secret,
    iccid: d.iccid,
    imei: d.imei,
  }));
}

async function register(repo: DeviceRegistryRepository, input: RegisterRow[]): Promise<RegisteredDevice[]> {
  const rows = input.map((r, i) => ({ ...r, row: (r as { row?: number }).row ?? i + 1 }));
  const { errors, models } = await checkRows(repo, rows);
  if (errors.length) throw rowErrors(errors);

  const filled: FilledRow[] = rows.map((r) => ({
    sn: r.sn,
    model: models.get(r.model.toLowerCase())!,
    bindKey: r.bindKey ?? newBindKey(),
    secret: r.secret ?? newSecret(),
    iccid: r.iccid ?? newIccid(),
    imei: r.imei ?? newImei(),
  }));
  try {
    return await repo.transaction(async (tx) => {
      const out: RegisteredDevice[] = [];
      for (let i = 0; i < filled.length; i += CHUNK) out.push(...(await insertChunk(tx, filled.slice(i, i + CHUNK))));
      return out;
    });
  } catch (e) {
    // Another registration won the race for a serial number or ICCID between the check and the insert.
    if ((e as { code?: string }).code === '23505') throw new AppError(400, 'registry.race');
    throw e;
  }
}

/**
 * Factory registration, all or nothing: checks every row, generates what is absent, stores the bind key's
 * sha256 only, creates each device's SIM row, and returns the keys and secrets — the only time they are shown.
 * Also the way tests and the simulator put devices in the database.
 */
export function registerDevices(db: Db, input: RegisterRow[]): Promise<RegisteredDevice[]> {
  return register(new DeviceRegistryRepository(db), input);
}

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

/** Who acts, for the system log. */
export interface Actor {
  tenantId: number;
  userId: number;
  ip: string;
}

/** Factory registration (staff): every device made, registering one or a file of them, reissuing a bind key. */
export class DeviceRegistryService {
  private repo: DeviceRegistryRepository;

  constructor(db: Db) {
    this.repo = new DeviceRegistryRepository(db);
  }

  /** Every device made, bound or not, with its owner's account name. */
  async list(q: RegistryQuery): Promise<Paged<RegistryItem>> {
    const { rows, total } = await this.repo.list(q);
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
      total,
    };
  }

  /**
   * Registers one device: its first problem is refused as a field error (`bind_key` named as the body's
   * `bindKey`); the bind key and secret are answered this once and only named as set in the system log.
   */
  async registerOne(actor: Actor, body: RegisterRow): Promise<RegisteredDevice[]> {
    const row = { ...body, row: 1 };
    const { errors } = await checkRows(this.repo, [row]);
    if (errors.length) {
      const first = errors[0];
      const field = CSV_FIELD[first.field] ?? first.field;
      // every row error is keyed (rowError)
      throw new AppError<MessageKey>(400, first.key as MessageKey, (first.params ?? null) as never, { field });
    }
    const devices = await register(this.repo, [row]);
    await this.repo.audit({
      ...actor,
      action: 'device.register',
      result: 'ok',
      resource: 'device',
      resourceId: devices[0].id,
      // the bind key and secret are named as set, their values masked by audit()
      changes: changedFields(
        {},
        {
          sn: devices[0].sn,
          model: body.model,
          iccid: devices[0].iccid,
          imei: devices[0].imei,
          bindKey: 'set',
          secret: 'set',
        },
      ),
    });
    return devices;
  }

  /**
   * Registers the rows of a file, all or nothing: its shape errors and every row's problems are refused together.
   */
  async importRows(
    actor: Actor,
    parsed: { rows: Array<RegisterRow & { row: number }>; shapeErrors: ImportRowError[] },
    filename: string,
  ): Promise<RegisteredDevice[]> {
    const { errors } = await checkRows(this.repo, parsed.rows);
    const all = sortRowErrors([...parsed.shapeErrors, ...errors]);
    if (all.length) throw rowErrors(all);
    const devices = await register(this.repo, parsed.rows);
    await this.repo.audit({
      ...actor,
      action: 'device.import',
      result: 'ok',
      resource: 'device',
      details: { imported: devices.length, file: filename.slice(0, 100) },
    });
    return devices;
  }

  /**
   * A new bind key for a registered device, bound or not (a label lost, or the key an unbinding owner was given
   * lost on the way): the previous key stops working. Answered this once; only its hash is kept.
   */
  async reissueBindKey(actor: Actor, id: number): Promise<{ id: number; sn: string; bindKey: string }> {
    const bindKey = newBindKey();
    const row = await this.repo.setBindKeyHash(id, sha256(bindKey));
    if (!row) throw notFound('device');
    await this.repo.audit({
      ...actor,
      action: 'device.bindKey.reissue',
      result: 'ok',
      resource: 'device',
      resourceId: row.id,
      changes: changedFields({ bindKey: 'old' }, { bindKey: 'new' }),
      details: { sn: row.sn },
    });
    return { id: row.id, sn: row.sn, bindKey };
  }
}
