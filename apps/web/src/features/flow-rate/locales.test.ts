import { describe, expect, it } from 'vitest';
import { SIM_STATES } from '@cpc/contracts/device-constants';
import locales from './locales';
import { itHasEveryKeyTheCodeAsksFor, itHasLocaleParity } from '../../lib/testing/locale-parity';

describe('flow-rate locales', () => {
  itHasLocaleParity('flowRate', locales);

  itHasEveryKeyTheCodeAsksFor(
    'flowRate',
    locales,
    import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    }),
    20,
  );

  it('names every SIM state in both languages', () => {
    for (const lng of ['zh', 'en'] as const)
      for (const s of SIM_STATES) expect(locales[lng].flowRate.state[s]).toBeTruthy();
  });
});
