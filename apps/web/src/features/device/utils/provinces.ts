import { SOUTH_CHINA_SEA } from '@/lib/charts/china-map';

/**
 * The server names a device's province as the shipped GeoJSON does (Chinese short names). The console looks
 * its words up by the administrative code, so both languages have a key that is not the Chinese name itself.
 */
const ADCODES: Record<string, string> = {
  北京: '110000',
  天津: '120000',
  河北: '130000',
  山西: '140000',
  内蒙古: '150000',
  辽宁: '210000',
  吉林: '220000',
  黑龙江: '230000',
  上海: '310000',
  江苏: '320000',
  浙江: '330000',
  安徽: '340000',
  福建: '350000',
  江西: '360000',
  山东: '370000',
  河南: '410000',
  湖北: '420000',
  湖南: '430000',
  广东: '440000',
  广西: '450000',
  海南: '460000',
  重庆: '500000',
  四川: '510000',
  贵州: '520000',
  云南: '530000',
  西藏: '540000',
  陕西: '610000',
  甘肃: '620000',
  青海: '630000',
  宁夏: '640000',
  新疆: '650000',
  台湾: '710000',
  香港: '810000',
  澳门: '820000',
};

export const provinceAdcode = (name: string): string | undefined => ADCODES[name];

/** A province's name in the user's language; a name the console does not know is shown as sent. */
export function provinceLabel(name: string, t: (key: string) => string): string {
  const code = ADCODES[name];
  return code ? t(`device.province.${code}`) : name;
}

/** echarts `nameMap` for the map's province labels in the user's language, with the South China Sea inset's. */
export function provinceNameMap(t: (key: string) => string): Record<string, string> {
  return {
    ...Object.fromEntries(Object.keys(ADCODES).map((name) => [name, provinceLabel(name, t)])),
    [SOUTH_CHINA_SEA]: t('device.province.southChinaSea'),
  };
}
