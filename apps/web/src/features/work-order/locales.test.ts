import { describe, expect, it } from 'vitest';
import { WORK_ORDER_PRIORITIES, WORK_ORDER_STATES, WORK_ORDER_TYPES } from '@cpc/contracts/work-order';
import locales from './locales';
import { itHasEveryKeyTheCodeAsksFor, itHasLocaleParity } from '../../lib/testing/locale-parity';

describe('work-order locales', () => {
  itHasLocaleParity('workOrder', locales);

  itHasEveryKeyTheCodeAsksFor(
    'workOrder',
    locales,
    import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    }),
    100,
  );

  it('names every state, type and priority in both languages', () => {
    for (const lng of ['zh', 'en'] as const) {
      for (const s of WORK_ORDER_STATES) expect(locales[lng].workOrder.state[s]).toBeTruthy();
      for (const s of WORK_ORDER_TYPES) expect(locales[lng].workOrder.type[s]).toBeTruthy();
      for (const s of WORK_ORDER_PRIORITIES) expect(locales[lng].workOrder.priority[s]).toBeTruthy();
    }
  });
});
