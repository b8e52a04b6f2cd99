import { describe, expect, it } from 'vitest';
import {
  activeFilterCount,
  changeFilters,
  filtersFromSearch,
  filtersToSearch,
  listQueryOf,
  type DeviceFilters,
} from './list-query';

describe('device list filters and the query string', () => {
  it('reads every filter a link may carry', () => {
    expect(
      filtersFromSearch(
        'status=online&groupId=3&modelId=2&departmentId=9&keyword=%20lobby%20&paper=out&sort=battery&order=desc&pageNo=4&pageSize=50',
      ),
    ).toEqual({
      pageNo: 4,
      pageSize: 50,
      status: 'online',
      groupId: 3,
      modelId: 2,
      departmentId: 9,
      keyword: 'lobby',
      paper: 'out',
      sort: 'battery',
      order: 'desc',
    });
  });

  it('reads an empty query as the first page of everything', () => {
    expect(filtersFromSearch('')).toEqual({ pageNo: 1, pageSize: 20 });
  });

  it.each([
    ['status=asleep', {}],
    ['paper=wet', {}],
    ['sort=price&order=desc', {}],
    ['groupId=-1', {}],
    ['groupId=0', { groupId: 0 }],
    ['modelId=0', {}],
    ['modelId=abc', {}],
    ['departmentId=0', {}],
    ['departmentId=7', { departmentId: 7 }],
    ['pageNo=0', {}],
    ['pageNo=2.5', {}],
    ['pageSize=33', {}],
    ['pageSize=1000', {}],
    ['keyword=%20%20', {}],
    ['sort=name', { sort: 'name', order: 'asc' }],
    ['order=desc', {}],
  ])('leaves out what it cannot read: %s', (search, expected) => {
    expect(filtersFromSearch(search)).toEqual({ pageNo: 1, pageSize: 20, ...expected });
  });

  it('cuts a keyword to what the server accepts', () => {
    expect(filtersFromSearch(`keyword=${'x'.repeat(80)}`).keyword).toHaveLength(50);
  });

  it('writes only what differs from the defaults, and reads back what it wrote', () => {
    const f: DeviceFilters = {
      pageNo: 2,
      pageSize: 50,
      status: 'offline',
      groupId: 0,
      keyword: 'A-01',
      sort: 'lastSeen',
      order: 'desc',
    };
    const search = filtersToSearch(f).toString();
    expect(search).toBe('status=offline&groupId=0&keyword=A-01&sort=lastSeen&order=desc&pageNo=2&pageSize=50');
    expect(filtersFromSearch(search)).toEqual(f);
    expect(filtersToSearch({ pageNo: 1, pageSize: 20 }).toString()).toBe('');
  });

  it('goes back to page 1 when a filter changes', () => {
    expect(changeFilters({ pageNo: 5, pageSize: 20, status: 'online' }, { status: undefined, keyword: 'x' })).toEqual({
      pageNo: 1,
      pageSize: 20,
      status: undefined,
      keyword: 'x',
    });
  });

  it('asks the server for exactly the filters set', () => {
    expect(listQueryOf({ pageNo: 1, pageSize: 20 })).toEqual({ pageNo: 1, pageSize: 20 });
    expect(listQueryOf({ pageNo: 3, pageSize: 10, groupId: 0, paper: 'out', sort: 'dataLeft' })).toEqual({
      pageNo: 3,
      pageSize: 10,
      groupId: 0,
      paper: 'out',
      sort: 'dataLeft',
      order: 'asc',
    });
  });

  it('counts the filters that narrow the list', () => {
    expect(activeFilterCount({ pageNo: 1, pageSize: 20, groupId: 2 })).toBe(0);
    expect(
      activeFilterCount({ pageNo: 1, pageSize: 20, status: 'online', keyword: 'a', paper: 'out', modelId: 1 }),
    ).toBe(4);
  });
});
