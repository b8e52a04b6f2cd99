import { describe, expect, it } from 'vitest';
import locales from './locales';
import { KNOWN_ACTIONS, actionKey } from './utils/filter';
import { itHasEveryKeyTheCodeAsksFor, itHasLocaleParity } from '../../lib/testing/locale-parity';

describe('system-log locales', () => {
  itHasLocaleParity('systemLog', locales);

  itHasEveryKeyTheCodeAsksFor(
    'systemLog',
    locales,
    import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    }),
    20,
  );

  it('names every action the console knows, in both languages', () => {
    for (const lng of ['zh', 'en'] as const)
      for (const a of KNOWN_ACTIONS) expect(locales[lng].systemLog.actions).toHaveProperty(actionKey(a));
  });
});
