import { describe, expect, it } from 'vitest';
import { SIM_STATES, PAPER_STATES } from '@cpc/contracts/device-constants';
import { WORK_ORDER_PRIORITIES, WORK_ORDER_STATES } from '@cpc/contracts/work-order';
import { WORKBENCH_SECTIONS } from '@cpc/contracts/workbench';
import locales from './locales';
import { itHasEveryKeyTheCodeAsksFor, itHasLocaleParity, leaves } from '../../lib/testing/locale-parity';

describe('workbench locales', () => {
  itHasLocaleParity('workbench', locales);
  itHasEveryKeyTheCodeAsksFor(
    'workbench',
    locales,
    import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    }),
    10,
  );

  it("names every section, its empty state and its time, and every code a section's tags show", () => {
    const zh = leaves(locales.zh);
    for (const s of WORKBENCH_SECTIONS)
      for (const group of ['section', 'none', 'at'])
        expect(zh.get(`workbench.${group}.${s}`), `${group}.${s}`).toBeTruthy();
    const codes: Record<string, readonly string[]> = {
      priority: WORK_ORDER_PRIORITIES,
      workOrderState: WORK_ORDER_STATES,
      simState: SIM_STATES,
      paper: PAPER_STATES,
      identityKind: ['individual', 'enterprise'],
    };
    for (const [group, list] of Object.entries(codes))
      for (const c of list) expect(zh.get(`workbench.tag.${group}.${c}`), `${group}.${c}`).toBeTruthy();
  });
});
