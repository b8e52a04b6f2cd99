import { describe, expect, it } from 'vitest';
import {
  hasNoControl,
  hasNoControlButLineBreaks,
  isAmount,
  isChineseName,
  isCreditCode,
  isEmail,
  isIP,
  isIdCard,
  isPassword,
  isPhone,
  isPort,
  isStrongPassword,
  isUrl,
  isUsername,
} from './validators.ts';

const table: Array<[string, (v: string) => boolean, string[], string[]]> = [
  ['isPassword (≥ 6)', isPassword, ['123456', 'abcdefgh', 'a b c ', '密码密码密码'], ['', '12345', 'abcde']],
  [
    'isStrongPassword (8–16, upper, lower, digit)',
    isStrongPassword,
    ['Passw0rd', 'Abcdefg1', 'A1bcdefghijklmno'],
    ['password', 'PASSWORD1', 'password1', 'Pass1', 'A1bcdefghijklmnop', 'Pass word1'],
  ],
  [
    'isPhone (11 digits starting with 1)',
    isPhone,
    ['13800000000', '19912345678', '10000000000'],
    ['23800000000', '1380000000', '138000000000', '1380000000a', ' 13800000000', '+8613800000000', ''],
  ],
  [
    'isEmail',
    isEmail,
    ['a@b.cn', 'first.last+tag@example.com', 'x_y-z@mail.example.co.uk', 'UPPER@EXAMPLE.COM'],
    ['a@b', '@b.cn', 'a b@c.cn', 'a@b.c', 'a@@b.cn', 'a@b..cn', 'a@.cn', '', 'a@b.cn '],
  ],
  [
    'isIP (IPv4 dotted quad)',
    isIP,
    ['127.0.0.1', '255.255.255.255', '0.0.0.0', '192.168.1.10'],
    ['256.1.1.1', '1.2.3', '01.2.3.4', 'a.b.c.d', '1.2.3.4.5', '1.2.3.', '', '::1'],
  ],
  ['isPort (1–65535)', isPort, ['1', '80', '65535', '8080'], ['0', '65536', '08', 'x', '-1', '80.5', '']],
  [
    'isUrl (http or https)',
    isUrl,
    ['https://example.com/a?b=1', 'http://localhost:8080', 'https://127.0.0.1/x#y'],
    ['ftp://x.cn', 'example.com', 'http://', 'javascript:alert(1)', '', '//example.com'],
  ],
  [
    'isChineseName (2–4)',
    isChineseName,
    ['张三', '欧阳娜娜', '李四五'],
    ['张', '欧阳娜娜娜', 'Zhang', '张3', '张 三', '', 'ｚｈ'],
  ],
  [
    'isAmount (≤ 2 decimals)',
    isAmount,
    ['0', '12', '12.5', '12.34', '0.01', '100000'],
    ['12.345', '-1', '01', '1.', 'abc', '.5', '', '1,000'],
  ],
  [
    'isIdCard (GB 11643 check digit)',
    isIdCard,
    ['11010519491231002X', '11010519491231002x', '11010119900307803X', '440308199901010012'],
    ['110105194912310021', '11010519491331002X', '1101051949123100', '01010519491231002X', '11010530001231002X'],
  ],
  [
    'isCreditCode (GB 32100 check)',
    isCreditCode,
    ['91350100M000100Y43', '91110000802100433B'],
    ['91350100M000100Y44', '91350100M000100Y4', 'I1350100M000100Y43'],
  ],
  ['isUsername', isUsername, ['admin1', 'user_name', 'Abcd'], ['abc', '1abcd', 'ab cd', 'a'.repeat(21)]],
];

describe.each(table)('%s', (_name, fn, good, bad) => {
  it.each(good)('accepts %s', (v) => expect(fn(v)).toBe(true));
  it.each(bad)('refuses %s', (v) => expect(fn(v)).toBe(false));
});

describe('validators taking numbers', () => {
  it.each([
    [isPort, 443, true],
    [isPort, 0, false],
    [isPort, 70000, false],
    [isAmount, 12.5, true],
    [isAmount, 0, true],
    [isAmount, 1.234, false],
    [isAmount, -3, false],
  ] as const)('%o(%s) is %s', (fn, v, want) => expect(fn(v)).toBe(want));
});

describe('the one control-character rule', () => {
  const cases: Array<[string, string, boolean, boolean]> = [
    ['plain text', 'Kitchen 厨房 ，。😀', true, true],
    ['a line break', 'a\nb', false, true],
    ['CR LF', 'a\r\nb', false, true],
    ['a tab', 'a\tb', false, false],
    ['NUL', 'a\u0000', false, false],
    ['ESC', '\u001b[2J', false, false],
    ['DEL', '\u007f', false, false],
    ['C1 U+0080', '\u0080', false, false],
    ['C1 NEL', 'a\u0085b', false, false],
    ['C1 CSI', '\u009b2J', false, false],
    ['C1 U+009F', '\u009f', false, false],
    ['NBSP after C1', 'a\u00a0b', true, true],
  ];
  it.each(cases)('%s', (_name, v, oneLine, multiLine) => {
    expect(hasNoControl(v)).toBe(oneLine);
    expect(hasNoControlButLineBreaks(v)).toBe(multiLine);
  });
});
