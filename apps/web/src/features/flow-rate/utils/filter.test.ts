import { describe, expect, it } from 'vitest';
import { filterFromSearch, filterParams, formatMbValue, usageSeries, withoutPaging } from './filter';

describe('the traffic query filter in the URL', () => {
  it('reads the states, the numbers and the sort of a link', () => {
    expect(
      filterFromSearch(
        new URLSearchParams('state=low,exhausted&expiringDays=7&belowPercent=10&sort=expiry&order=desc&pageNo=2'),
      ),
    ).toEqual({
      state: ['low', 'exhausted'],
      expiringDays: 7,
      belowPercent: 10,
      sort: 'expiry',
      order: 'desc',
      pageNo: 2,
    });
  });

  it('drops what the server would refuse, so a hand-edited link still opens', () => {
    expect(
      filterFromSearch(
        new URLSearchParams(
          'state=low,bogus,low&expiringDays=0&belowPercent=200&sort=name&order=up&pageSize=7&groupId=x',
        ),
      ),
    ).toEqual({ state: ['low'] });
    expect(filterFromSearch(new URLSearchParams(''))).toEqual({});
  });

  it('writes only what is set, states comma-separated, and round-trips', () => {
    const f = { state: ['low' as const, 'expired' as const], keyword: 'abc', groupId: 3, pageNo: 2 };
    expect(filterParams(f)).toEqual({ state: 'low,expired', keyword: 'abc', groupId: '3', pageNo: '2' });
    expect(filterFromSearch(new URLSearchParams(filterParams(f)))).toEqual(f);
    expect(filterParams({ state: [], keyword: '' })).toEqual({});
    expect(withoutPaging({ ...f, pageSize: 20 })).toEqual({ state: ['low', 'expired'], keyword: 'abc', groupId: 3 });
  });
});

describe('usage figures', () => {
  it('says MB up to 1 GB, then GB', () => {
    expect(formatMbValue(12.345)).toBe('12.35 MB');
    expect(formatMbValue(2048)).toBe('2 GB');
    expect(formatMbValue(-3)).toBe('0 MB');
  });

  it('turns bytes per day into MB series with the total', () => {
    const s = usageSeries([
      { date: '2026-11-01', txBytes: 1024 * 1024, rxBytes: 3 * 1024 * 1024 },
      { date: '2026-11-02', txBytes: 0, rxBytes: 512 * 1024 },
    ]);
    expect(s).toEqual({ dates: ['2026-11-01', '2026-11-02'], tx: [1, 0], rx: [3, 0.5], totalMb: 4.5 });
  });
});
