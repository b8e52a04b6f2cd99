import { parse } from 'csv-parse/sync';
import { CsvError } from 'csv-parse';
import { IMPORT_COLUMNS, IMPORT_MAX_ROWS } from '@cpc/contracts/device';
import type { ImportRowError } from '@cpc/contracts/device-registry';
import { badRequest } from '../../plugins/errors.ts';
import { rowError, type RegisterRow } from './service.ts';

/** A registration row with the line of the file it came from (the header is line 1). */
export type NumberedRow = RegisterRow & { row: number };
export interface ParsedCsv {
  rows: NumberedRow[];
  /** Rows whose column count differs from the header's: reported with the other row errors. */
  shapeErrors: ImportRowError[];
}

const EXPECTED = IMPORT_COLUMNS.join(',');
type Column = (typeof IMPORT_COLUMNS)[number];
const FIELD: Record<Column, keyof RegisterRow> = {
  sn: 'sn',
  model: 'model',
  bind_key: 'bindKey',
  secret: 'secret',
  iccid: 'iccid',
  imei: 'imei',
};

/**
 * Reads a factory CSV (`sn,model,bind_key,secret,iccid,imei`, header required, any column order, only sn and
 * model mandatory). Anything that is not such a file is refused as a whole with a 400 on `file`.
 */
export function parseDeviceCsv(bytes: Buffer): ParsedCsv {
  if (bytes.length === 0) throw badRequest('file', 'registry.fileEmpty');
  let text: string;
  try {
    if (bytes.includes(0)) throw new Error('binary');
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw badRequest('file', 'registry.notUtf8');
  }
  text = text.replace(/^\ufeff/, '');

  // The header alone first, so a file that is no CSV at all is named as such rather than by a quote error deep inside.
  const headerLine = text.split(/\r?\n/, 1)[0] ?? '';
  let header: string[];
  try {
    header = (parse(headerLine, { trim: true }) as string[][])[0]?.map((h) => h.toLowerCase()) ?? [];
  } catch {
    header = [];
  }
  const known = new Set<string>(IMPORT_COLUMNS);
  const headerOk =
    header.length > 0 &&
    header.includes('sn') &&
    header.includes('model') &&
    header.every((h) => known.has(h)) &&
    new Set(header).size === header.length;
  if (!headerOk) throw badRequest('file', 'registry.header', { header: EXPECTED });

  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    records = parse(text, {
      trim: true,
      skip_empty_lines: true,
      relax_column_count: true,
      info: true,
      // the header, the most rows taken, and one more to tell that there are too many: parsing stops there
      to: IMPORT_MAX_ROWS + 2,
    }) as unknown as typeof records;
  } catch (e) {
    if (e instanceof CsvError)
      throw badRequest('file', 'registry.badCsv', {
        line: (e as CsvError & { lines?: number }).lines ?? '?',
        why: e.message.split(':')[0],
      });
    throw e;
  }
  const data = records.slice(1);
  if (data.length === 0) throw badRequest('file', 'registry.noRows');
  if (data.length > IMPORT_MAX_ROWS) throw badRequest('file', 'registry.tooManyRows', { n: IMPORT_MAX_ROWS });

  const rows: NumberedRow[] = [];
  const shapeErrors: ParsedCsv['shapeErrors'] = [];
  for (const { record, info } of data) {
    if (record.length !== header.length) {
      shapeErrors.push(
        rowError(info.lines, 'row', 'registry.columns', { expected: header.length, found: record.length }),
      );
      continue;
    }
    const row: NumberedRow = { row: info.lines, sn: '', model: '' };
    header.forEach((h, i) => {
      const v = record[i];
      if (v !== '') row[FIELD[h as Column]] = v;
    });
    rows.push(row);
  }
  return { rows, shapeErrors };
}
