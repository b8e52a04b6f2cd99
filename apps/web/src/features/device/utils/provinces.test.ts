import { beforeAll, describe, expect, it } from 'vitest';
import { CHINA_PROVINCES } from '@cpc/contracts/geo/provinces';
import { CHINA_MAP, SOUTH_CHINA_SEA } from '@/lib/charts/china-map';
import { i18n } from '@/lib/i18n';
import { provinceAdcode, provinceLabel, provinceNameMap } from './provinces';

beforeAll(() => i18n.loadLanguages('en'));

describe('province names', () => {
  it('knows every province of the shipped map, by the code the map gives it', () => {
    for (const f of CHINA_PROVINCES.features)
      expect(provinceAdcode(f.properties.name), f.properties.name).toBe(f.properties.adcode);
  });

  it('reads them in the user language, and an unknown name as sent', () => {
    expect(provinceLabel('北京', i18n.getFixedT('en'))).toBe('Beijing');
    expect(provinceLabel('内蒙古', i18n.getFixedT('zh'))).toBe('内蒙古');
    expect(provinceLabel('Atlantis', i18n.getFixedT('en'))).toBe('Atlantis');
    expect(provinceNameMap(i18n.getFixedT('en'))['新疆']).toBe('Xinjiang');
  });
});

describe('the South China Sea islands inset', () => {
  // ECharts adds the inset, named 南海诸岛, to the map registered as CHINA_MAP; the nameMap must reach it too
  const drawn = async (lang: 'zh' | 'en') => {
    const echarts = await import('echarts/core');
    const { GeoComponent } = await import('echarts/components');
    const { SVGRenderer } = await import('echarts/renderers');
    echarts.use([GeoComponent, SVGRenderer]);
    echarts.registerMap(CHINA_MAP, CHINA_PROVINCES as unknown as Parameters<typeof echarts.registerMap>[1]);
    const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 800, height: 600 });
    // zoomed onto the islands, labels on, as the device map shows them from zoom 3
    chart.setOption({
      animation: false,
      geo: {
        map: CHINA_MAP,
        nameMap: provinceNameMap(i18n.getFixedT(lang)),
        zoom: 4,
        center: [114, 15],
        label: { show: true },
      },
    });
    const svg = chart.renderToSVGString();
    chart.dispose();
    return svg;
  };

  it('is labelled in the user language', async () => {
    expect(provinceNameMap(i18n.getFixedT('en'))[SOUTH_CHINA_SEA]).toBe('South China Sea Islands');
    const en = await drawn('en');
    expect(en).toContain('South China Sea Islands');
    expect(en).not.toContain(SOUTH_CHINA_SEA);
    expect(await drawn('zh')).toContain(SOUTH_CHINA_SEA);
  });
});
