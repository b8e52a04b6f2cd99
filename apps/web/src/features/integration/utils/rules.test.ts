import { describe, expect, it } from 'vitest';
import { checkCallbackUrl, checkIpAllowList, checkKeyName, checkRateLimit, fieldErrors, splitIpList } from './rules';

const t = (key: string) => key;

describe('app key form rules (the server schema, checked before sending)', () => {
  it.each([
    ['', 'integration.validation.nameRequired'],
    ['   ', 'integration.validation.nameRequired'],
    ['Shop checkout', null],
    ['收银系统', null],
    ['x'.repeat(30), null],
    [` ${'x'.repeat(30)} `, null],
    ['x'.repeat(31), 'integration.validation.nameMax'],
  ])('name %j → %s', (name, expected) => expect(checkKeyName(name)).toBe(expected));

  it.each([
    ['', null],
    ['https://example.com/cb', null],
    [' http://10.0.0.5:8080/hook?x=1 ', null],
    ['ftp://example.com/cb', 'integration.validation.callbackUrl'],
    ['example.com/cb', 'integration.validation.callbackUrl'],
    ['https://user:pw@example.com/cb', 'integration.validation.callbackUrl'],
    [`https://example.com/${'a'.repeat(500)}`, 'integration.validation.callbackUrl'],
  ])('callback URL %j → %s', (url, expected) => expect(checkCallbackUrl(url)).toBe(expected));

  it.each([
    ['', null],
    ['203.0.113.10', null],
    ['203.0.113.10\n10.0.0.0/8, 2001:db8::/32 ::1', null],
    ['256.1.1.1', 'integration.validation.ip'],
    ['10.0.0.0/33', 'integration.validation.ip'],
    ['example.com', 'integration.validation.ip'],
    ['10.0.0.1\n10.0.0.1', 'integration.validation.ipRepeat'],
    [Array.from({ length: 51 }, (_, i) => `10.0.0.${i}`).join('\n'), 'integration.validation.ipMax'],
  ])('IP allow-list %j → %s', (text, expected) => expect(checkIpAllowList(splitIpList(text))).toBe(expected));

  it.each([
    [null, null],
    [undefined, null],
    [1, null],
    [100_000, null],
    [0, 'integration.validation.rateLimit'],
    [100_001, 'integration.validation.rateLimit'],
    [2.5, 'integration.validation.rateLimit'],
  ])('rate limit %j → %s', (v, expected) => expect(checkRateLimit(v)).toBe(expected));

  it('splits an allow-list on lines, commas and spaces and drops blanks', () => {
    expect(splitIpList(' 1.2.3.4,5.6.7.8\n\n 10.0.0.0/8 ，::1 ')).toEqual(['1.2.3.4', '5.6.7.8', '10.0.0.0/8', '::1']);
  });

  it("puts the server's field refusals beside their fields in the user's language, anything else in a message", () => {
    const err = Object.assign(new Error('ipAllowList.1: each must be an IPv4 or IPv6 address or CIDR block'), {
      data: {
        fields: [
          { field: 'ipAllowList.1', message: 'each must be an IPv4 or IPv6 address or CIDR block', key: 'rule.ipList' },
        ],
      },
    });
    expect(fieldErrors(err, ['name', 'ipAllowList'], t)).toEqual({
      fields: [{ name: 'ipAllowList', errors: ['integration.validation.ip'] }],
      other: null,
    });
    expect(fieldErrors(new Error('at most 20 app keys'), ['name'], t)).toEqual({
      fields: [],
      other: 'at most 20 app keys',
    });
  });
});
