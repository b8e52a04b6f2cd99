import { theme } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { UsageView } from '@cpc/contracts/integration';
import { Chart } from '@/lib/charts/chart';

/** Calls, errors and jobs per day as grouped bars; a chunk of its own, loaded when the usage tab opens. */
export default function UsageChart({ usage }: { usage: UsageView }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const option = useMemo(() => {
    const axisText = { color: token.colorTextSecondary, fontFamily: token.fontFamily, fontSize: 11 };
    return {
      backgroundColor: 'transparent',
      color: [token.colorPrimary, token.colorError, token.colorSuccess],
      grid: { left: 8, right: 8, top: 36, bottom: 8, containLabel: true },
      legend: {
        top: 0,
        textStyle: { color: token.colorTextSecondary, fontFamily: token.fontFamily },
        itemWidth: 14,
        itemHeight: 8,
      },
      tooltip: {
        trigger: 'axis',
        backgroundColor: token.colorBgElevated,
        borderColor: token.colorBorderSecondary,
        textStyle: { color: token.colorText, fontFamily: token.fontFamily, fontSize: 12 },
        axisPointer: { type: 'shadow' },
      },
      xAxis: {
        type: 'category',
        data: usage.days.map((d) => d.day.slice(5)),
        axisLine: { lineStyle: { color: token.colorBorder } },
        axisLabel: { ...axisText, hideOverlap: true },
      },
      yAxis: {
        type: 'value',
        minInterval: 1,
        axisLabel: axisText,
        splitLine: { lineStyle: { color: token.colorBorderSecondary } },
      },
      series: (['calls', 'errors', 'jobs'] as const).map((k) => ({
        name: t(`integration.usage.${k}`),
        type: 'bar',
        barMaxWidth: 14,
        data: usage.days.map((d) => d[k]),
      })),
    };
  }, [usage, t, token]);
  return <Chart option={option} notMerge height={240} data-testid="usage-chart" />;
}
