import { describe } from 'vitest';
import locales from './locales';
import { itHasEveryKeyTheCodeAsksFor, itHasLocaleParity } from '../../lib/testing/locale-parity';

describe('device-registry locales', () => {
  itHasLocaleParity('deviceRegistry', locales);

  itHasEveryKeyTheCodeAsksFor(
    'deviceRegistry',
    locales,
    import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    }),
    20,
  );
});
