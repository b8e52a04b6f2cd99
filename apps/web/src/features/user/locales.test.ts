import { describe, expect, it } from 'vitest';
import locales from './locales';
import { itHasEveryKeyTheCodeAsksFor, itHasLocaleParity, leaves } from '../../lib/testing/locale-parity';

describe('user locales', () => {
  itHasLocaleParity('user', locales);
  const zh = leaves(locales.zh);

  itHasEveryKeyTheCodeAsksFor(
    'user',
    locales,
    import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    }),
    40,
  );

  it('names every role, tenant kind and status the server sends', () => {
    for (const key of [
      'user.profile.authStatus.0',
      'user.profile.authStatus.1',
      'user.profile.authStatus.2',
      'user.profile.authStatus.3',
      'user.profile.tenantKind.individual',
      'user.profile.tenantKind.enterprise',
      'user.profile.tenantKind.platform',
      'user.subAccount.role.operator',
      'user.subAccount.role.viewer',
      'user.subAccount.state.active',
      'user.subAccount.state.disabled',
      'user.avatar.type',
      'user.avatar.size',
    ]) {
      expect(zh.has(key), key).toBe(true);
    }
  });
});
