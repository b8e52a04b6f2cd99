import { theme } from 'antd';

/** The colours charts take from the antd theme, so they follow light and dark like the rest of the page. */
export function useChartColors() {
  const { token } = theme.useToken();
  return {
    text: token.colorText,
    textSecondary: token.colorTextSecondary,
    border: token.colorBorder,
    split: token.colorBorderSecondary,
    tooltipBg: token.colorBgElevated,
    primary: token.colorPrimary,
    success: token.colorSuccess,
    warning: token.colorWarning,
    error: token.colorError,
    offline: token.colorTextTertiary,
    land: token.colorFillSecondary,
    landHover: token.colorPrimaryBgHover,
    landBorder: token.colorBorder,
    containerBg: token.colorBgContainer,
    fontFamily: token.fontFamily,
  };
}

export type ChartColors = ReturnType<typeof useChartColors>;

/** Tooltip styling shared by the charts. */
export const tooltipStyle = (c: ChartColors) => ({
  backgroundColor: c.tooltipBg,
  borderColor: c.split,
  textStyle: { color: c.text, fontFamily: c.fontFamily, fontSize: 12 },
  extraCssText: 'box-shadow: 0 6px 16px rgba(0,0,0,.12);',
});
