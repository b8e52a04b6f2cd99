import { expect, it } from 'vitest';

type Dict = { [key: string]: string | Dict };

/** Flattens a locale tree into `a.b.c → text`. */
export const leaves = (d: Dict, prefix = ''): Map<string, string> => {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(d)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') out.set(key, v);
    else for (const [kk, vv] of leaves(v, key)) out.set(kk, vv);
  }
  return out;
};

const placeholders = (s: string) => [...s.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();

/** A feature's zh and en have the same keys under its namespace, the same placeholders and no empty text. */
export function itHasLocaleParity(namespace: string, locales: { zh: Dict; en: Dict }): void {
  const zh = leaves(locales.zh);
  const en = leaves(locales.en);
  it(`has every key in both languages, under the ${namespace} namespace`, () => {
    expect([...zh.keys()].sort()).toEqual([...en.keys()].sort());
    expect([...zh.keys()].every((k) => k.startsWith(`${namespace}.`))).toBe(true);
  });
  it('uses the same placeholders in both languages and no empty text', () => {
    for (const [key, text] of zh) {
      expect(text.trim(), key).not.toBe('');
      expect(placeholders(text), key).toEqual(placeholders(en.get(key) ?? ''));
    }
  });
}
