import { describe, expect, it } from 'vitest';
import locales from './locales';
import { itHasLocaleParity, leaves } from '../../lib/testing/locale-parity';

describe('identity locales', () => {
  itHasLocaleParity('identity', locales);
  const zh = leaves(locales.zh);

  it('has every literal key the code asks for', () => {
    const sources = import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    });
    const used = new Set<string>();
    for (const text of Object.values(sources)) {
      for (const m of text.matchAll(/['"`](identity\.[A-Za-z0-9_.]+)['"`]/g)) used.add(m[1]);
    }
    expect(used.size).toBeGreaterThan(10);
    const missing = [...used].filter((k) => !zh.has(k) && ![...zh.keys()].some((z) => z.startsWith(`${k}.`)));
    expect(missing).toEqual([]);
  });
});
