import { describe, expect, it } from 'vitest';
import { ROUTE_COMPONENTS } from '@cpc/contracts/menu';
import { PAGE_COMPONENTS } from './route-components';

/**
 * The administration pages built in parallel with menu management (issue 12): named in ROUTE_COMPONENTS
 * ahead of their loaders. Once they are all merged this list goes and the two sets must be equal.
 */
const ADMIN_PAGES = [
  'user/userManagement',
  'user/roleManagement',
  'user/departmentManagement',
  'user/menuManagement',
  'user/systemLog',
];

describe('page components', () => {
  it('has a page for every component the server may name, and names every page (Layout groups only)', () => {
    const pages = PAGE_COMPONENTS.filter((c) => !ADMIN_PAGES.includes(c)).sort();
    const named = ROUTE_COMPONENTS.filter((c) => c !== 'Layout' && !ADMIN_PAGES.includes(c)).sort();
    expect(pages).toEqual(named);
  });

  it('has the menu management page', () => {
    expect(PAGE_COMPONENTS).toContain('user/menuManagement');
    expect(ROUTE_COMPONENTS).toContain('user/menuManagement');
  });
});
