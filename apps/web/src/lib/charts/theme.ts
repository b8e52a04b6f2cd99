import type { GlobalToken } from 'antd';

/** The antd tokens the charts are painted with; light and dark come from the same names. */
export const CHART_TOKEN_KEYS = [
  'colorPrimary',
  'colorPrimaryBg',
  'colorPrimaryBorder',
  'colorSuccess',
  'colorWarning',
  'colorError',
  'colorText',
  'colorTextSecondary',
  'colorTextTertiary',
  'colorBorder',
  'colorBorderSecondary',
  'colorSplit',
  'colorBgElevated',
  'colorBgContainer',
  'colorFillSecondary',
  'fontFamily',
  'fontSizeSM',
  'purple',
  'cyan',
  'magenta',
  'gold',
] as const satisfies ReadonlyArray<keyof GlobalToken>;

export type ChartTokens = Pick<GlobalToken, (typeof CHART_TOKEN_KEYS)[number]>;

/**
 * An ECharts theme object built from antd tokens, so charts follow the console's theme colour and its light or
 * dark scheme instead of ECharts' own palette.
 */
export function chartTheme(t: ChartTokens) {
  const axis = {
    axisLine: { lineStyle: { color: t.colorBorder } },
    axisTick: { lineStyle: { color: t.colorBorder } },
    axisLabel: { color: t.colorTextSecondary, fontSize: t.fontSizeSM },
    splitLine: { lineStyle: { color: t.colorSplit } },
    nameTextStyle: { color: t.colorTextTertiary },
  };
  const area = {
    itemStyle: { areaColor: t.colorFillSecondary, borderColor: t.colorBorder },
    label: { color: t.colorTextSecondary },
    emphasis: { itemStyle: { areaColor: t.colorPrimaryBorder }, label: { color: t.colorText } },
  };
  return {
    color: [t.colorPrimary, t.colorSuccess, t.colorWarning, t.purple, t.cyan, t.magenta, t.gold, t.colorError],
    backgroundColor: 'transparent',
    textStyle: { color: t.colorTextSecondary, fontFamily: t.fontFamily },
    legend: { textStyle: { color: t.colorTextSecondary }, pageTextStyle: { color: t.colorTextSecondary } },
    tooltip: {
      backgroundColor: t.colorBgElevated,
      borderColor: t.colorBorderSecondary,
      textStyle: { color: t.colorText },
      axisPointer: { lineStyle: { color: t.colorBorder }, crossStyle: { color: t.colorBorder } },
    },
    categoryAxis: { ...axis, splitLine: { show: false, lineStyle: axis.splitLine.lineStyle } },
    valueAxis: axis,
    visualMap: { textStyle: { color: t.colorTextSecondary } },
    map: area,
    geo: area,
  };
}

/** The colour scale of the map: from the faintest primary tint to the primary itself. */
export const mapScale = (t: ChartTokens): [string, string] => [t.colorPrimaryBg, t.colorPrimary];
