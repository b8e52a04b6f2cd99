import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { FIELDS_ZH, MESSAGES_ZH, NOUNS_ZH } from './zh.ts';

/**
 * The console asks for its language with `Accept-Language` (zh by default, SPEC §1); the server then says its
 * `msg` in that language. Callers that ask for nothing (integrators, scripts, the tests) get en. `data.fields`
 * stays en: it is for programs, which match it.
 */
export type Language = 'zh' | 'en';

export function requestLanguage(req: FastifyRequest): Language {
  const header = req.headers['accept-language'];
  const first = (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim().toLowerCase() ?? '';
  return first.startsWith('zh') ? 'zh' : 'en';
}

interface Pattern {
  re: RegExp;
  names: string[];
  zh: string;
  /** Literal characters: the more a pattern has, the more specific it is. */
  weight: number;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const PATTERNS: Pattern[] = Object.entries(MESSAGES_ZH)
  .filter(([en]) => /\{\w+\}/.test(en))
  .map(([en, zh]) => {
    const names: string[] = [];
    const source = en
      .split(/(\{\w+\})/)
      .map((part) => {
        const m = /^\{(\w+)\}$/.exec(part);
        if (!m) return escape(part);
        names.push(m[1]);
        return '(.+?)';
      })
      .join('');
    return { re: new RegExp(`^${source}$`, 's'), names, zh, weight: en.replace(/\{\w+\}/g, '').length };
  })
  .sort((a, b) => b.weight - a.weight);

const valueOf = (name: string, value: string): string => {
  if (name === 'what') return NOUNS_ZH[value] ?? value;
  if (name === 'field') return FIELDS_ZH[value] ?? value;
  // a value that is itself a message (the reason inside a larger one)
  if (name === 'why' || name === 'rows') return translate(value) ?? value;
  return value;
};

/** The zh of one en message, or null when the dictionary does not know it. */
export function translate(en: string): string | null {
  const exact = MESSAGES_ZH[en];
  if (exact !== undefined) return exact;
  for (const p of PATTERNS) {
    const m = p.re.exec(en);
    if (!m) continue;
    const values = Object.fromEntries(p.names.map((name, i) => [name, valueOf(name, m[i + 1])]));
    return p.zh.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? '');
  }
  return null;
}

const FIELD_MESSAGE = /^([A-Za-z][\w.[\]]*(?:,[\w.[\]]+)*): (.+)$/s;

/** The form's label of a field path (its last segment), or the path itself. */
export const fieldLabel = (path: string): string => FIELDS_ZH[path.split('.').pop() ?? path] ?? path;

function localizeFieldMessage(part: string): string {
  const m = FIELD_MESSAGE.exec(part);
  if (!m) return translate(part) ?? part;
  const zh = translate(m[2]);
  return zh === null ? part : `${fieldLabel(m[1])}：${zh}`;
}

/**
 * `msg` in the caller's language: a known message whole; "field: problem" as "label：问题"; the joined problems
 * of a validation error one by one. What the dictionary does not know stays as the server wrote it.
 */
export function localizeMessage(msg: string, lang: Language): string {
  if (lang === 'en' || !msg) return msg;
  const whole = translate(msg);
  if (whole !== null) return whole;
  const parts = msg.split('; ');
  if (parts.length > 1 && parts.every((p) => FIELD_MESSAGE.test(p))) return parts.map(localizeFieldMessage).join('；');
  return localizeFieldMessage(msg);
}

// ---------------------------------------------------------------------------------------------------------------
// zod's own messages (a schema without a message of its own): said anew from the issue

const TYPES_ZH: Record<string, string> = {
  string: '字符串',
  number: '数字',
  int: '整数',
  integer: '整数',
  boolean: '布尔值',
  object: '对象',
  array: '数组',
  date: '日期',
  bigint: '整数',
  null: 'null',
};

/** A validation issue as fastify-type-provider-zod hands it over: its code, and its other fields in params. */
export interface ValidationIssue {
  code: string;
  message: string;
  params: Record<string, unknown>;
}

const zodLocaleZh = z.locales.zhCN().localeError;

/** The zh of a zod issue's message: the schema's own message through the dictionary, zod's default said in zh. */
export function zodIssueZh({ code, message, params }: ValidationIssue): string {
  // the schemas' own messages start lower case; zod's defaults ("Too big: …", "Invalid input: …") upper case
  if (!/^[A-Z]/.test(message)) return translate(message) ?? message;
  const n = (v: unknown) => (typeof v === 'bigint' ? v.toString() : String(v));
  const origin = params.origin;
  switch (code) {
    case 'invalid_type':
      return `应为${TYPES_ZH[n(params.expected)] ?? n(params.expected)}`;
    case 'too_big':
      if (origin === 'string') return `不能超过 ${n(params.maximum)} 个字符`;
      if (origin === 'array' || origin === 'set') return `最多 ${n(params.maximum)} 项`;
      return params.inclusive === false ? `必须小于 ${n(params.maximum)}` : `不能大于 ${n(params.maximum)}`;
    case 'too_small':
      if (origin === 'string') return Number(params.minimum) <= 1 ? '不能为空' : `不能少于 ${n(params.minimum)} 个字符`;
      if (origin === 'array' || origin === 'set') return `至少 ${n(params.minimum)} 项`;
      return params.inclusive === false ? `必须大于 ${n(params.minimum)}` : `不能小于 ${n(params.minimum)}`;
    case 'invalid_value':
      return `必须是以下之一：${(Array.isArray(params.values) ? params.values : []).map(n).join('、')}`;
    case 'unrecognized_keys':
      return '是不认识的字段';
    default: {
      const said = zodLocaleZh({ code, message, ...params, path: [], input: undefined } as never);
      return typeof said === 'string' ? said : (said?.message ?? message);
    }
  }
}
