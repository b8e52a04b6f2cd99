import { describe } from 'vitest';
import locales from './locales';
import { itHasEveryKeyTheCodeAsksFor, itHasLocaleParity } from '../../lib/testing/locale-parity';

describe('system-custom locales', () => {
  itHasLocaleParity('systemCustom', locales);

  itHasEveryKeyTheCodeAsksFor(
    'systemCustom',
    locales,
    import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    }),
    20,
  );
});
