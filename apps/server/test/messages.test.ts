import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MESSAGES, NOUNS, isMessageKey, placeholdersOf, renderMessage } from '@cpc/contracts/messages';
import { zodIssueZh } from '../src/lib/i18n/localize.ts';
import { parseMarkup } from '@cpc/contracts/print-markup';
import { AppError, badRequest, notFound } from '../src/plugins/errors.ts';
import { markupError } from '../src/modules/print/content.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');

const refusedMarkup = (content: string) => {
  const parsed = parseMarkup(content);
  if (parsed.ok) throw new Error('the markup was taken');
  return parsed.error;
};

function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Values that only en's grammar needs (zh has no plural): a zh text may leave them out. */
const EN_ONLY: Record<string, string[]> = { 'print.alreadySent': ['deliveries'] };

/** Where the server says a message: the argument after the code, the field or the refusal's reason. */
const SERVER_CALLS =
  /(?:new AppError(?:<[^>]*>)?\(\s*\d+,\s*|badRequest\(\s*[^,()]+,\s*|refuse\(\s*'[a-z_]+',\s*|rowError\([^,]+,\s*[^,]+,\s*|fieldError\(\s*[^,()]+,\s*)(['`])((?:\\.|(?!\1).)*)\1/gs;
const NOT_FOUND = /notFound\(\s*'([^']*)'\s*\)/g;
/** A schema's own message: `message: '…'` or the message argument of a check. */
const SCHEMA_MESSAGES = /(?:message:\s*|error:\s*|,\s*)(['`])([a-z<'][^'`\n]*\s[^'`\n]*)\1/g;

describe('every message is in the catalogue, in zh and en', () => {
  it('has both languages for every key, with the same values', () => {
    const wrong: string[] = [];
    for (const [key, texts] of Object.entries(MESSAGES) as Array<[string, { en: string; zh: string }]>) {
      if (!texts.en.trim() || !texts.zh.trim()) wrong.push(`${key}: empty`);
      if (/[\u4e00-\u9fff]/.test(texts.en)) wrong.push(`${key}: en has Chinese`);
      const en = placeholdersOf(texts.en).filter((p) => !EN_ONLY[key]?.includes(p));
      const zh = placeholdersOf(texts.zh);
      if ([...new Set(en)].join() !== [...new Set(zh)].join())
        wrong.push(`${key}: en {${en.join()}} zh {${zh.join()}}`);
    }
    expect(wrong).toEqual([]);
  });

  it('throws keys only: no en sentence outside the catalogue', () => {
    const found: string[] = [];
    for (const file of sources(path.join(ROOT, 'apps/server/src'))) {
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(SERVER_CALLS))
        if (!isMessageKey(m[2])) found.push(`${path.relative(ROOT, file)}: ${m[2]}`);
      for (const m of text.matchAll(NOT_FOUND))
        if (!(m[1] in NOUNS)) found.push(`${path.relative(ROOT, file)}: notFound('${m[1]}')`);
    }
    for (const file of sources(path.join(ROOT, 'packages/contracts/src'))) {
      const rel = path.relative(ROOT, file);
      if (rel.endsWith('messages.ts')) continue;
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(SCHEMA_MESSAGES)) {
        // enum values and examples are not messages: a message has words and is not a code
        if (/^[\w.:-]+$/.test(m[2]) || /: (true|false)$/.test(m[2])) continue;
        found.push(`${rel}: ${m[2]}`);
      }
    }
    // a catalogue text written out anywhere (a helper's argument the patterns above do not see) is a key missed
    const texts = new Set<string>(
      Object.values(MESSAGES)
        .map((m) => m.en)
        .filter((en) => en.includes(' ')),
    );
    for (const file of [
      ...sources(path.join(ROOT, 'apps/server/src')),
      ...sources(path.join(ROOT, 'packages/contracts/src')),
    ]) {
      // envelope.ts holds SPEC §8's table of the codes' texts (the console's fallback): the same as the http.* keys
      if (file.endsWith('messages.ts') || file.endsWith('envelope.ts')) continue;
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/(['`])((?:\\.|(?!\1)[^\\\n])*)\1/g))
        if (texts.has(m[2])) found.push(`${path.relative(ROOT, file)}: ${m[2]}`);
    }
    expect(found).toEqual([]);
  });

  it('finds a sentence thrown outside the catalogue', () => {
    const sample = "throw new AppError(400, 'something new happened'); throw badRequest('sn', `bad ${x}`);";
    expect([...sample.matchAll(SERVER_CALLS)].map((m) => m[2])).toEqual(['something new happened', 'bad ${x}']);
  });
});

describe('the server says its messages in the caller’s language', () => {
  it.each([
    [new AppError(401, 'auth.wrongPassword'), 'wrong user name or password', '用户名或密码错误'],
    [notFound('device'), 'device does not exist', '设备不存在'],
    [notFound('parent group'), 'parent group does not exist', '上级分组不存在'],
    [new AppError(400, 'auth.captchaWrong'), 'graphic captcha is wrong or expired', '图形验证码错误或已过期'],
    [
      new AppError(429, 'auth.loginThrottled', { n: 15 }),
      'too many failed logins, try again in 15 minutes',
      '登录失败次数过多，请 15 分钟后再试',
    ],
    [
      badRequest('mobile', 'rule.mobile'),
      'mobile: must be 11 digits starting with 1',
      '手机号：请输入以 1 开头的 11 位手机号',
    ],
    [
      badRequest('name', 'integration.tooManyKeys', { n: 20 }),
      'name: an account has at most 20 app keys; delete one first',
      '名称：每个账号最多 20 个应用密钥，请先删除一个',
    ],
    [
      markupError(refusedMarkup('A\nB\n<QR></QR>')),
      'content: <QR> at line 3, column 1: <QR> is empty',
      '内容：<QR> 第 3 行第 1 列：<QR> 为空',
    ],
  ])('says %# in en and zh', (err, en, zh) => {
    expect(err.say('en')).toBe(en);
    expect(err.say('zh')).toBe(zh);
    expect(err.message).toBe(en);
  });

  it('puts the key and values beside the en message of a field', () => {
    expect(badRequest('to', 'device.rangeTooLong', { n: 31 }).data).toEqual({
      fields: [
        { field: 'to', message: 'the range must not exceed 31 days', key: 'device.rangeTooLong', params: { n: 31 } },
      ],
    });
  });

  it('says a message inside a message, and a list, in the same language', () => {
    const rows = [
      { key: 'registry.rowProblem', params: { row: 2, column: 'sn', why: { key: 'registry.taken' } } },
    ] as const;
    expect(renderMessage('en', 'registry.nothingImported', { rows })).toBe(
      'nothing imported: row 2 sn: already registered',
    );
    expect(renderMessage('zh', 'registry.nothingImported', { rows })).toBe('未导入任何设备：第 2 行 sn：已登记过');
    expect(renderMessage('zh', 'http.noRoute', { method: 'GET', path: '/apiAdmin/nothing' })).toBe(
      'GET /apiAdmin/nothing：访问的资源不存在',
    );
  });

  it.each([
    [
      {
        code: 'too_big',
        message: 'Too big: expected string to have <=30 characters',
        params: { origin: 'string', maximum: 30, inclusive: true },
      },
      '不能超过 30 个字符',
    ],
    [
      {
        code: 'too_small',
        message: 'Too small: expected string to have >=1 characters',
        params: { origin: 'string', minimum: 1, inclusive: true },
      },
      '不能为空',
    ],
    [
      {
        code: 'too_small',
        message: 'Too small: expected number to be >=1',
        params: { origin: 'number', minimum: 1, inclusive: true },
      },
      '不能小于 1',
    ],
    [
      {
        code: 'invalid_type',
        message: 'Invalid input: expected number, received string',
        params: { expected: 'number' },
      },
      '应为数字',
    ],
    [
      {
        code: 'invalid_value',
        message: 'Invalid option: expected one of "online"|"offline"',
        params: { values: ['online', 'offline'] },
      },
      '必须是以下之一：online、offline',
    ],
  ])('says zod’s own issue %# in zh', (issue, zh) => {
    expect(zodIssueZh(issue)).toBe(zh);
  });
});
