import { describe } from 'vitest';
import locales from './locales';
import { itHasEveryKeyTheCodeAsksFor, itHasLocaleParity } from '../../lib/testing/locale-parity';

describe('fence locales', () => {
  itHasLocaleParity('fence', locales);

  itHasEveryKeyTheCodeAsksFor(
    'fence',
    locales,
    import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    }),
    60,
    // keys built from a value: `fence.rule.${r}`, `fence.side.${s}`, `fence.weekday.${d}`, `fence.events.${kind}`
    (text) =>
      text.includes('fence.rule.${')
        ? [
            'fence.rule.leave',
            'fence.rule.enter',
            'fence.rule.both',
            'fence.side.inside',
            'fence.side.outside',
            'fence.side.unknown',
            'fence.weekday.1',
            'fence.weekday.7',
            'fence.events.enter',
            'fence.events.leave',
          ]
        : [],
  );
});
