import { describe, expect, it } from 'vitest';
import locales from './locales';

type Dict = { [key: string]: string | Dict };

const leaves = (d: Dict, prefix = ''): Map<string, string> => {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(d)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') out.set(key, v);
    else for (const [kk, vv] of leaves(v, key)) out.set(kk, vv);
  }
  return out;
};

const placeholders = (s: string) => [...s.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();

describe('identity-review locales', () => {
  const zh = leaves(locales.zh);
  const en = leaves(locales.en);

  it('has every key in both languages, under the identityReview namespace', () => {
    expect([...zh.keys()].sort()).toEqual([...en.keys()].sort());
    expect([...zh.keys()].every((k) => k.startsWith('identityReview.'))).toBe(true);
  });

  it('uses the same placeholders in both languages and no empty text', () => {
    for (const [key, text] of zh) {
      expect(text.trim(), key).not.toBe('');
      expect(placeholders(text), key).toEqual(placeholders(en.get(key) ?? ''));
    }
  });

  it('has every literal key the code asks for', () => {
    const sources = import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    });
    const used = new Set<string>();
    for (const text of Object.values(sources)) {
      for (const m of text.matchAll(/['"`](identityReview\.[A-Za-z0-9_.]+)['"`]/g)) used.add(m[1]);
    }
    expect(used.size).toBeGreaterThan(10);
    const missing = [...used].filter((k) => !zh.has(k) && ![...zh.keys()].some((z) => z.startsWith(`${k}.`)));
    expect(missing).toEqual([]);
  });
});
