import { describe, expect, it } from 'vitest';
import { IMPORT_COLUMNS } from '@cpc/contracts/device-constants';
import { csvField, keysCsv, keysFileName, templateCsv } from './csv';

const device = {
  id: 1,
  sn: 'CP58-0001',
  model: 'CP-58A',
  bindKey: 'K7M2Q9XW4RTA',
  secret: '-abc_DEF0123456789xyz',
  iccid: '89860012345678901234',
  imei: '861234567890123',
};

describe('registration CSV files', () => {
  it('offers a template that is exactly the header the import expects, readable by Excel as UTF-8', () => {
    const text = templateCsv();
    expect(text.startsWith('\ufeff')).toBe(true);
    expect(text.slice(1)).toBe('sn,model,bind_key,secret,iccid,imei\r\n');
    expect(text.slice(1).trim().split(',')).toEqual([...IMPORT_COLUMNS]);
  });

  it('writes the generated keys in the import columns, one device a line, values untouched', () => {
    const text = keysCsv([device, { ...device, id: 2, sn: 'CP58-0002' }]);
    const lines = text.replace(/^\ufeff/, '').split('\r\n');
    expect(lines).toEqual([
      'sn,model,bind_key,secret,iccid,imei',
      'CP58-0001,CP-58A,K7M2Q9XW4RTA,-abc_DEF0123456789xyz,89860012345678901234,861234567890123',
      'CP58-0002,CP-58A,K7M2Q9XW4RTA,-abc_DEF0123456789xyz,89860012345678901234,861234567890123',
      '',
    ]);
  });

  it('quotes a field only when it must', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
  });

  it('names each download by the moment it was made', () => {
    expect(keysFileName(new Date(2024, 4, 1, 9, 30, 5))).toBe('device-keys-20240501-093005.csv');
  });
});
