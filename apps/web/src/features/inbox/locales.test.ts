import { describe } from 'vitest';
import { MESSAGE_GROUPS } from '@cpc/contracts';
import locales from './locales';
import { itHasEveryKeyTheCodeAsksFor, itHasLocaleParity } from '../../lib/testing/locale-parity';

describe('inbox locales', () => {
  itHasLocaleParity('inbox', locales);

  itHasEveryKeyTheCodeAsksFor(
    'inbox',
    locales,
    import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    }),
    20,
    () => MESSAGE_GROUPS.map((g) => `inbox.group.${g}`),
  );
});
