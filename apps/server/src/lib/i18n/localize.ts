import type { FastifyRequest } from 'fastify';
import { z } from 'zod';

/**
 * The console asks for its language with `Accept-Language` (zh by default, SPEC §1); the server then says its
 * `msg` in that language from the catalogue (contracts/messages.ts). Callers that ask for nothing (integrators,
 * scripts, the tests) get en. `data.fields` stays en, with each message's key: it is for programs.
 */
export type Language = 'zh' | 'en';

export function requestLanguage(req: FastifyRequest): Language {
  const header = req.headers['accept-language'];
  const first = (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim().toLowerCase() ?? '';
  return first.startsWith('zh') ? 'zh' : 'en';
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
  if (!/^[A-Z]/.test(message)) return message;
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
