import { describe, expect, it } from 'vitest';
import { ROUTE_COMPONENTS } from '@cpc/contracts/menu';
import { PAGE_COMPONENTS } from './route-components';

describe('page components', () => {
  it('has a page for every component the server may name, and names every page (Layout groups only)', () => {
    const named = ROUTE_COMPONENTS.filter((c) => c !== 'Layout').sort();
    expect([...PAGE_COMPONENTS].sort()).toEqual(named);
  });

  it('has every administration page of the menu (SPEC §2: user/…)', () => {
    for (const page of [
      'user/userManagement',
      'user/roleManagement',
      'user/departmentManagement',
      'user/menuManagement',
      'user/systemLog',
    ])
      expect(PAGE_COMPONENTS).toContain(page);
  });
});
