import { describe } from 'vitest';
import locales from './locales';
import { itHasEveryKeyTheCodeAsksFor, itHasLocaleParity } from '../../lib/testing/locale-parity';

describe('auth locales', () => {
  itHasLocaleParity('auth', locales);

  itHasEveryKeyTheCodeAsksFor(
    'auth',
    locales,
    import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    }),
    10,
    (text) => [...text.matchAll(/\$\{V\}(\w+)/g)].map((m) => `auth.validation.${m[1]}`),
  );
});
