import { expect, it } from 'vitest';
import { isMessageKey } from '@cpc/contracts/messages';

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

/**
 * Every literal key of the namespace that the feature's code asks for (`'ns.a.b'` in its sources, which the test
 * file globs with `import.meta.glob(…, { query: '?raw', import: 'default', eager: true })`) exists in zh, as a text
 * or as the parent of texts. `atLeast` guards the scan itself: a pattern that finds nothing would pass.
 */
export function itHasEveryKeyTheCodeAsksFor(
  namespace: string,
  locales: { zh: Dict },
  sources: Record<string, string>,
  atLeast: number,
  more: (text: string) => Iterable<string> = () => [],
): void {
  it('has every literal key the code asks for', () => {
    const zh = leaves(locales.zh);
    const pattern = new RegExp(`['"\`](${namespace}\\.[A-Za-z0-9_.]*[A-Za-z0-9_])['"\`]`, 'g');
    const used = new Set<string>();
    for (const text of Object.values(sources)) {
      for (const m of text.matchAll(pattern)) used.add(m[1]);
      for (const key of more(text)) used.add(key);
    }
    expect(used.size).toBeGreaterThan(atLeast);
    // a key is there as a text, as the parent of texts, or as plural forms (`key_one`, `key_other`); the server's
    // message keys (contracts/messages.ts) share some namespaces: they are the catalogue's, not these locales'
    const missing = [...used].filter(
      (k) =>
        !isMessageKey(k) && !zh.has(k) && !zh.has(`${k}_other`) && ![...zh.keys()].some((z) => z.startsWith(`${k}.`)),
    );
    expect(missing).toEqual([]);
  });
}
