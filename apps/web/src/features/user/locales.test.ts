import { describe, expect, it } from 'vitest';
import { isMessageKey } from '@cpc/contracts/messages';
import locales from './locales';
import { itHasLocaleParity, leaves } from '../../lib/testing/locale-parity';

describe('user locales', () => {
  itHasLocaleParity('user', locales);
  const zh = leaves(locales.zh);

  it('has every literal key the code asks for', () => {
    const sources = import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    });
    const used = new Set<string>();
    for (const text of Object.values(sources)) {
      for (const m of text.matchAll(/['"`](user\.[A-Za-z0-9_.]+)['"`]/g)) used.add(m[1]);
    }
    expect(used.size).toBeGreaterThan(40);
    // a count's key is asked for bare and found with its plural suffix (total → total_one, total_other)
    // the server's message keys (contracts/messages.ts) share some namespaces: they are the catalogue's, not these locales'
    const missing = [...used].filter((k) => !isMessageKey(k) && !zh.has(k) && !zh.has(`${k}_other`) && ![...zh.keys()].some((z) => z.startsWith(k.endsWith('.') ? k : `${k}.`)));
    expect(missing).toEqual([]);
  });

  it('names every role, tenant kind and status the server sends', () => {
    for (const key of ['user.profile.authStatus.0', 'user.profile.authStatus.1', 'user.profile.authStatus.2', 'user.profile.authStatus.3', 'user.profile.tenantKind.individual', 'user.profile.tenantKind.enterprise', 'user.profile.tenantKind.platform', 'user.subAccount.role.operator', 'user.subAccount.role.viewer', 'user.subAccount.state.active', 'user.subAccount.state.disabled', 'user.avatar.type', 'user.avatar.size']) {
      expect(zh.has(key), key).toBe(true);
    }
  });
});
