import { describe, expect, it } from 'vitest';
import { checks, registerBody } from './rules';

describe('single registration rules', () => {
  it.each([
    ['sn', '', 'deviceRegistry.message.snRequired'],
    ['sn', 'ab', 'deviceRegistry.message.sn'],
    ['sn', '-CP58', 'deviceRegistry.message.sn'],
    ['sn', 'CP58-0001', null],
    ['model', '  ', 'deviceRegistry.message.modelRequired'],
    ['model', 'CP-58A', null],
    ['bindKey', '', null],
    ['bindKey', 'abc', 'deviceRegistry.message.bindKey'],
    ['bindKey', 'K7M2Q9XW4RTA', null],
    ['secret', 'short', 'deviceRegistry.message.secret'],
    ['secret', 'abcdefghij_-123456', null],
    ['iccid', '8986001234', 'deviceRegistry.message.iccid'],
    ['iccid', '89860012345678901234', null],
    ['imei', '861234567890124', 'deviceRegistry.message.imei'],
    ['imei', '490154203237518', null],
  ] as const)('%s "%s" → %s', (field, value, key) => {
    expect(checks[field](value)).toBe(key);
  });

  it('leaves empty optional fields out so the server generates them', () => {
    expect(
      JSON.parse(
        JSON.stringify(
          registerBody({ sn: ' CP58-0001 ', model: 'cp-58a', bindKey: ' ', iccid: '89860012345678901234 ' }),
        ),
      ),
    ).toEqual({
      sn: 'CP58-0001',
      model: 'cp-58a',
      iccid: '89860012345678901234',
    });
  });
});
