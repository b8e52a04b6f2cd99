import { describe, expect, it } from 'vitest';
import { isAmount, isChineseName, isCreditCode, isEmail, isIP, isIdCard, isPassword, isPhone, isPort, isStrongPassword, isUrl, isUsername } from './validators.ts';

const table: Array<[string, (v: string) => boolean, string[], string[]]> = [
  ['isPassword (≥ 6)', isPassword, ['123456', 'abcdefgh'], ['', '12345']],
  ['isStrongPassword (8–16, upper, lower, digit)', isStrongPassword, ['Passw0rd', 'Abcdefg1', 'A1bcdefghijklmno'], ['password', 'PASSWORD1', 'password1', 'Pass1', 'A1bcdefghijklmnop', 'Pass word1']],
  ['isPhone', isPhone, ['13800000000', '19912345678'], ['23800000000', '1380000000', '138000000000', '1380000000a']],
  ['isEmail', isEmail, ['a@b.cn', 'first.last+tag@example.com'], ['a@b', '@b.cn', 'a b@c.cn']],
  ['isIP', isIP, ['127.0.0.1', '255.255.255.255', '0.0.0.0'], ['256.1.1.1', '1.2.3', '01.2.3.4', 'a.b.c.d']],
  ['isPort', isPort, ['1', '80', '65535'], ['0', '65536', '08', 'x']],
  ['isUrl', isUrl, ['https://example.com/a?b=1', 'http://localhost:8080'], ['ftp://x.cn', 'example.com', 'http://']],
  ['isChineseName (2–4)', isChineseName, ['张三', '欧阳娜娜'], ['张', '欧阳娜娜娜', 'Zhang', '张3']],
  ['isAmount (≤ 2 decimals)', isAmount, ['0', '12', '12.5', '12.34'], ['12.345', '-1', '01', '1.', 'abc']],
  ['isIdCard (GB 11643 check digit)', isIdCard, ['11010519491231002X', '11010519491231002x', '11010119900307803X', '440308199901010012'], ['110105194912310021', '11010519491331002X', '1101051949123100', '01010519491231002X', '11010530001231002X']],
  ['isCreditCode (GB 32100 check)', isCreditCode, ['91350100M000100Y43', '91110000802100433B'], ['91350100M000100Y44', '91350100M000100Y4', 'I1350100M000100Y43']],
  ['isUsername', isUsername, ['admin1', 'user_name', 'Abcd'], ['abc', '1abcd', 'ab cd', 'a'.repeat(21)]],
];

describe.each(table)('%s', (_name, fn, good, bad) => {
  it.each(good)('accepts %s', (v) => expect(fn(v)).toBe(true));
  it.each(bad)('refuses %s', (v) => expect(fn(v)).toBe(false));
});
