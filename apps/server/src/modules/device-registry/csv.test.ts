import { describe, expect, it } from 'vitest';
import { parseDeviceCsv } from './csv.ts';
import { AppError } from '../../plugins/errors.ts';

const parse = (text: string | Buffer) => parseDeviceCsv(Buffer.isBuffer(text) ? text : Buffer.from(text));
const refusal = (text: string | Buffer) => {
  try {
    parse(text);
  } catch (e) {
    if (e instanceof AppError) return `${e.code} ${e.message}`;
    throw e;
  }
  return 'accepted';
};

describe('parseDeviceCsv', () => {
  it('reads any column order, a BOM, CRLF, quotes and blank lines, numbering rows by file line', () => {
    const { rows, shapeErrors } = parse(
      '\ufeffModel, SN ,imei\r\nP58,A-0001,\r\n\r\n"P,58","B-0002",861234567890125\r\n',
    );
    expect(shapeErrors).toEqual([]);
    expect(rows).toEqual([
      { row: 2, sn: 'A-0001', model: 'P58' },
      { row: 4, sn: 'B-0002', model: 'P,58', imei: '861234567890125' },
    ]);
  });

  it('reports rows with the wrong number of columns, keeping the others', () => {
    const { rows, shapeErrors } = parse('sn,model\nA-0001,P58\nB-0002\nC-0003,P58,extra\n');
    expect(rows.map((r) => r.sn)).toEqual(['A-0001']);
    expect(shapeErrors).toEqual([
      {
        row: 3,
        field: 'row',
        message: 'expected 2 columns, found 1',
        key: 'registry.columns',
        params: { expected: 2, found: 1 },
      },
      {
        row: 4,
        field: 'row',
        message: 'expected 2 columns, found 3',
        key: 'registry.columns',
        params: { expected: 2, found: 3 },
      },
    ]);
  });

  it.each([
    ['', '400 file: the file is empty'],
    [
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]),
      '400 file: must be a UTF-8 CSV text file (in Excel: save as "CSV UTF-8")',
    ],
    [
      Buffer.from('sn,model\nA-0001,\xc4\xe3\n', 'latin1'),
      '400 file: must be a UTF-8 CSV text file (in Excel: save as "CSV UTF-8")',
    ],
    [
      'hello world\n',
      '400 file: the first line must be the header sn,model,bind_key,secret,iccid,imei (sn and model required)',
    ],
    [
      'sn,bind_key\nA-0001,KEY123\n',
      '400 file: the first line must be the header sn,model,bind_key,secret,iccid,imei (sn and model required)',
    ],
    [
      'sn,model,sn\nA,B,C\n',
      '400 file: the first line must be the header sn,model,bind_key,secret,iccid,imei (sn and model required)',
    ],
    ['sn,model\n\n\n', '400 file: no devices in the file'],
    ['sn,model\n"A-0001,P58\n', /^400 file: not a valid CSV at line \d+: Quote Not Closed$/],
  ])('refuses %j', (text, message) => {
    if (message instanceof RegExp) expect(refusal(text)).toMatch(message);
    else expect(refusal(text)).toBe(message);
  });

  it('refuses more than 10,000 devices in one file', () => {
    const big = ['sn,model', ...Array.from({ length: 10_001 }, (_, i) => `S-${i},P58`)].join('\n');
    expect(refusal(big)).toBe('400 file: at most 10000 devices per file');
  });
});
