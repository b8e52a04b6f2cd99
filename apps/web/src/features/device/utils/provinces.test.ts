import { beforeAll, describe, expect, it } from 'vitest';
import { CHINA_PROVINCES } from '@cpc/contracts/geo/provinces';
import { i18n } from '@/lib/i18n';
import { provinceAdcode, provinceLabel, provinceNameMap } from './provinces';

beforeAll(() => i18n.loadLanguages('en'));

describe('province names', () => {
  it('knows every province of the shipped map, by the code the map gives it', () => {
    for (const f of CHINA_PROVINCES.features) expect(provinceAdcode(f.properties.name), f.properties.name).toBe(f.properties.adcode);
  });

  it('reads them in the user language, and an unknown name as sent', () => {
    expect(provinceLabel('北京', i18n.getFixedT('en'))).toBe('Beijing');
    expect(provinceLabel('内蒙古', i18n.getFixedT('zh'))).toBe('内蒙古');
    expect(provinceLabel('Atlantis', i18n.getFixedT('en'))).toBe('Atlantis');
    expect(provinceNameMap(i18n.getFixedT('en'))['新疆']).toBe('Xinjiang');
  });
});
