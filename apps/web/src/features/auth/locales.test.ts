import { describe, expect, it } from 'vitest';
import { isMessageKey } from '@cpc/contracts/messages';
import locales from './locales';
import { itHasLocaleParity, leaves } from '../../lib/testing/locale-parity';

describe('auth locales', () => {
  itHasLocaleParity('auth', locales);
  const zh = leaves(locales.zh);

  it('has every literal key the code asks for', () => {
    const sources = import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    });
    const used = new Set<string>();
    for (const text of Object.values(sources)) {
      for (const m of text.matchAll(/['"`](auth\.[A-Za-z0-9_.]*[A-Za-z0-9_])['"`]/g)) used.add(m[1]);
      // rules.ts builds its keys from a prefix: `${V}usernameRequired`
      for (const m of text.matchAll(/\$\{V\}(\w+)/g)) used.add(`auth.validation.${m[1]}`);
    }
    expect(used.size).toBeGreaterThan(10);
    // the server's message keys (contracts/messages.ts) share some namespaces: they are the catalogue's, not these locales'
    const missing = [...used].filter((k) => !isMessageKey(k) && !zh.has(k) && ![...zh.keys()].some((z) => z.startsWith(`${k}.`)));
    expect(missing).toEqual([]);
  });
});
