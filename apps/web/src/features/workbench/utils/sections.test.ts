import { describe, expect, it } from 'vitest';
import { WORKBENCH_SECTIONS } from '@cpc/contracts/workbench';
import { SECTION_META, orderSections, pendingTotal } from './sections';

describe('workbench sections', () => {
  it('knows every section the server may send', () => {
    expect(Object.keys(SECTION_META).sort()).toEqual([...WORKBENCH_SECTIONS].sort());
  });

  it('puts sections with something to do first, each group in the fixed order', () => {
    const got = orderSections([
      { key: 'notices', count: 2 },
      { key: 'deviceOffline', count: 0 },
      { key: 'simLow', count: 1 },
      { key: 'workOrderWaiting', count: 3 },
    ] as const);
    expect(got.map((s) => s.key)).toEqual(['workOrderWaiting', 'simLow', 'notices', 'deviceOffline']);
  });

  it('counts what needs doing without the announcements', () => {
    expect(
      pendingTotal([
        { key: 'notices', count: 5 },
        { key: 'simLow', count: 2 },
        { key: 'deviceFault', count: 1 },
      ]),
    ).toBe(3);
  });
});
