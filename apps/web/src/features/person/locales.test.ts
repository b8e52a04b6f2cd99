import { describe, expect, it } from 'vitest';
import locales from './locales';
import { itHasLocaleParity, leaves } from '../../lib/testing/locale-parity';

describe('person locales', () => {
  itHasLocaleParity('person', locales);
  const zh = leaves(locales.zh);

  it('has every literal key the code asks for', () => {
    const sources = import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    });
    const used = new Set<string>();
    for (const text of Object.values(sources)) {
      for (const m of text.matchAll(/['"`](person\.[A-Za-z0-9_.]+)['"`]/g)) used.add(m[1]);
    }
    expect(used.size).toBeGreaterThan(40);
    // a count's key is asked for bare and found with its plural suffix (total → total_one, total_other)
    const missing = [...used].filter((k) => !zh.has(k) && !zh.has(`${k}_other`) && ![...zh.keys()].some((z) => z.startsWith(k.endsWith('.') ? k : `${k}.`)));
    expect(missing).toEqual([]);
  });

  it('names every role, tenant kind and status the server sends', () => {
    for (const key of ['person.profile.authStatus.0', 'person.profile.authStatus.1', 'person.profile.authStatus.2', 'person.profile.authStatus.3', 'person.profile.tenantKind.individual', 'person.profile.tenantKind.enterprise', 'person.profile.tenantKind.platform', 'person.subAccount.role.operator', 'person.subAccount.role.viewer', 'person.subAccount.state.active', 'person.subAccount.state.disabled', 'person.avatar.type', 'person.avatar.size']) {
      expect(zh.has(key), key).toBe(true);
    }
  });
});
