import { describe, expect, it } from 'vitest';
import { CHINA_PROVINCES, provinceAt } from './provinces.ts';

describe('provinceAt', () => {
  it.each([
    [39.9042, 116.4074, '北京'],
    [31.2304, 121.4737, '上海'],
    [23.1291, 113.2644, '广东'],
    [30.5728, 104.0668, '四川'],
    [43.8256, 87.6168, '新疆'],
    [29.652, 91.1721, '西藏'],
    [22.3193, 114.1694, '香港'],
    [35.6762, 139.6503, ''], // Tokyo
    [0, 0, ''],
  ])('(%f, %f) is in %s', (lat, lng, name) => {
    expect(provinceAt(lat, lng)).toBe(name);
  });

  it('ships all 34 provincial divisions', () => {
    expect(CHINA_PROVINCES.features).toHaveLength(34);
  });
});
