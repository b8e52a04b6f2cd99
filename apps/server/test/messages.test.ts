import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { localizeMessage, translate, zodIssueZh } from '../src/lib/i18n/localize.ts';
import { MESSAGES_ZH, NOUNS_ZH } from '../src/lib/i18n/zh.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');

function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** `${expr}` and `{name}` both become `{}`: a message as the code writes it and as the dictionary keys it. */
const shape = (s: string) => s.replace(/\$\{(?:[^{}]|\{[^{}]*\})*\}/g, '{}').replace(/\{\w+\}/g, '{}');
/** A message that starts with a field name ("captcha: …") is said as "label：…": the rest is what needs words. */
const withoutField = (s: string) => s.replace(/^[A-Za-z][\w.]*: /, '');

const SERVER_CALLS = /(?:new AppError\(\s*\d+,\s*|badRequest\(\s*['`][^'`]*['`],\s*|refuse\(\s*'[a-z_]+',\s*)(['`])((?:\\.|(?!\1).)*)\1/gs;
const NOT_FOUND = /notFound\(\s*'([^']*)'\s*\)/g;
const SCHEMA_MESSAGES = /(?:message:\s*|,\s*)(['`])([a-z<'][^'`\n]*\s[^'`\n]*)\1/g;

/** Messages meant for programs or built from other messages, which are checked on their own. */
const NOT_FOR_PEOPLE = [/^broker hook:/, /^\{\}: \{\}$/, /^content: \{\}$/, /^id: \{\}$/, /^a value \{\}$/];

/**
 * Whether the dictionary says `written` (a message as the code writes it, `${…}` and all): a plain one is
 * translated as it will be at run time; one with values must have a key of the same shape. A value whose
 * expression the scan cannot follow (a template inside a template) ends the comparison there.
 */
function known(written: string, keys: string[]): boolean {
  if (!written.includes('${')) return translate(written) !== null || translate(withoutField(written)) !== null;
  const nested = /\$\{[^}]*$/.test(written.replace(/\$\{(?:[^{}]|\{[^{}]*\})*\}/g, ''));
  const target = shape(written).replace(/(\{\})+/g, '{}');
  const candidates = [target, withoutField(target)];
  return keys.some((k) => candidates.some((c) => (nested ? k.startsWith(c.slice(0, c.indexOf('${') < 0 ? c.length : c.indexOf('${'))) : k === c)));
}

describe('the server speaks zh (the console’s default language)', () => {
  it('has a zh text for every message the server and the contracts can send', () => {
    const missing = new Set<string>();
    const keys = Object.keys(MESSAGES_ZH).map(shape);
    for (const file of sources(path.join(ROOT, 'apps/server/src'))) {
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(SERVER_CALLS)) {
        const msg = shape(m[2]);
        if (NOT_FOR_PEOPLE.some((re) => re.test(msg))) continue;
        if (!known(m[2], keys)) missing.add(`${path.relative(ROOT, file)}: ${m[2]}`);
      }
      for (const m of text.matchAll(NOT_FOUND)) if (!(m[1] in NOUNS_ZH)) missing.add(`${path.relative(ROOT, file)}: notFound('${m[1]}')`);
    }
    for (const file of [...sources(path.join(ROOT, 'packages/contracts/src'))]) {
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(SCHEMA_MESSAGES)) {
        const msg = shape(m[2]);
        // enum values and examples are not messages: a message has words and is not a code
        if (!/ /.test(msg) || /^[\w.:-]+$/.test(msg) || /: (true|false)$/.test(msg)) continue;
        if (!known(m[2], keys)) missing.add(`${path.relative(ROOT, file)}: ${m[2]}`);
      }
    }
    expect([...missing]).toEqual([]);
  });

  it.each([
    ['wrong user name or password', '用户名或密码错误'],
    ['device does not exist', '设备不存在'],
    ['parent group does not exist', '上级分组不存在'],
    ['graphic captcha is wrong or expired', '图形验证码错误或已过期'],
    ['too many failed logins, try again in 15 minutes', '登录失败次数过多，请 15 分钟后再试'],
    ['mobile: must be 11 digits starting with 1; password: must be 8-16 characters with upper and lower case letters and digits', '手机号：请输入以 1 开头的 11 位手机号；密码：密码必须是 8-16 位，且包含大小写字母和数字'],
    ['name: an account has at most 20 app keys; delete one first', '名称：每个账号最多 20 个应用密钥，请先删除一个'],
    ['content: <QR> at line 3, column 1: <QR> is empty', '内容：<QR> 第 3 行第 1 列：<QR> 为空'],
    ['GET /apiAdmin/nothing: resource does not exist', 'GET /apiAdmin/nothing：访问的资源不存在'],
  ])('says "%s" as "%s"', (en, zh) => {
    expect(localizeMessage(en, 'zh')).toBe(zh);
    expect(localizeMessage(en, 'en')).toBe(en);
  });

  it('leaves what it does not know as the server wrote it', () => {
    expect(localizeMessage('something new happened', 'zh')).toBe('something new happened');
    expect(localizeMessage('sn: something new', 'zh')).toBe('sn: something new');
    expect(translate('')).toBeNull();
  });

  it.each([
    [{ code: 'too_big', message: 'Too big: expected string to have <=30 characters', params: { origin: 'string', maximum: 30, inclusive: true } }, '不能超过 30 个字符'],
    [{ code: 'too_small', message: 'Too small: expected string to have >=1 characters', params: { origin: 'string', minimum: 1, inclusive: true } }, '不能为空'],
    [{ code: 'too_small', message: 'Too small: expected number to be >=1', params: { origin: 'number', minimum: 1, inclusive: true } }, '不能小于 1'],
    [{ code: 'invalid_type', message: 'Invalid input: expected number, received string', params: { expected: 'number' } }, '应为数字'],
    [{ code: 'invalid_value', message: 'Invalid option: expected one of "online"|"offline"', params: { values: ['online', 'offline'] } }, '必须是以下之一：online、offline'],
    [{ code: 'custom', message: 'must be 11 digits starting with 1', params: {} }, '请输入以 1 开头的 11 位手机号'],
  ])('says zod’s issue %# in zh', (issue, zh) => {
    expect(zodIssueZh(issue)).toBe(zh);
  });
});
