import { describe, expect, it } from 'vitest';
import { OPTIONAL_COLUMNS, visibleColumns } from './use-device-columns';

// antd's breakpoints a window of that width reaches
const at1366 = { xs: true, sm: true, md: true, lg: true, xl: true, xxl: false };
const at1920 = { ...at1366, xxl: true };
const at800 = { xs: true, sm: true, md: true, lg: false, xl: false, xxl: false };

describe('device list columns', () => {
  it('shows what a fleet owner checks first on a 1366 px laptop, and everything from 1600 px', () => {
    expect([...visibleColumns({}, at1366)]).toEqual(['paper', 'battery', 'simLeft', 'lastSeen']);
    expect([...visibleColumns({}, at1920)]).toEqual([...OPTIONAL_COLUMNS]);
    expect([...visibleColumns({}, at800)]).toEqual(['paper', 'lastSeen']);
  });

  it("follows the user's own choice over the width", () => {
    expect([...visibleColumns({ signal: true, paper: false }, at1366)]).toEqual([
      'battery',
      'signal',
      'simLeft',
      'lastSeen',
    ]);
  });
});
