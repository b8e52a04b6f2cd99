import { Segmented } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Trend, TrendUnit } from '@cpc/contracts/dashboard';
import { TREND_DAYS, TREND_UNITS } from '@cpc/contracts/device-constants';
import { useDashboardTrend } from '../api/dashboard';
import { trendSeries } from '../utils/dashboard-data';
import { Chart } from '@/lib/charts/chart';
import { WidgetCard } from './widget-card';

interface TrendChartProps {
  /** The daily trend, part of the overview. */
  daily: Trend | undefined;
  loading: boolean;
}

/** Devices online and tasks sent over the last days, per hour or per day. */
export function TrendChart({ daily, loading }: TrendChartProps) {
  const { t } = useTranslation();
  const [unit, setUnit] = useState<TrendUnit>('day');
  const hourly = useDashboardTrend('hour', unit === 'hour');
  const trend = unit === 'hour' ? hourly.data : daily;
  const series = useMemo(() => (trend ? trendSeries(trend) : null), [trend]);

  const option = useMemo(
    () => ({
      tooltip: { trigger: 'axis' },
      // below the plot: the axes' names take the top corners
      legend: { bottom: 0 },
      grid: { left: 8, right: 8, top: 36, bottom: 56 },
      xAxis: {
        type: 'category',
        data: series?.labels ?? [],
        boundaryGap: unit === 'day',
        axisLabel: { hideOverlap: true },
      },
      yAxis: [
        { type: 'value', minInterval: 1, name: t('dashboard.trend.online') },
        { type: 'value', minInterval: 1, name: t('dashboard.trend.tasks'), splitLine: { show: false } },
      ],
      series: [
        {
          name: t('dashboard.trend.online'),
          type: 'line',
          smooth: true,
          showSymbol: unit === 'day',
          areaStyle: { opacity: 0.12 },
          data: series?.online ?? [],
        },
        { name: t('dashboard.trend.tasks'), type: 'bar', yAxisIndex: 1, barMaxWidth: 18, data: series?.tasks ?? [] },
      ],
    }),
    [series, unit, t],
  );

  return (
    <WidgetCard
      testId="widget-trend"
      loading={loading}
      title={t('dashboard.trend.title', { days: TREND_DAYS })}
      extra={
        <Segmented<TrendUnit>
          size="small"
          value={unit}
          onChange={setUnit}
          options={TREND_UNITS.map((u) => ({ value: u, label: t(`dashboard.trend.${u}`) }))}
        />
      }
      empty={series?.empty && !hourly.isFetching ? t('dashboard.trend.empty', { days: TREND_DAYS }) : undefined}
    >
      <Chart
        option={option}
        height={300}
        loading={unit === 'hour' && hourly.isPending}
        aria-label={t('dashboard.trend.title', { days: TREND_DAYS })}
      />
    </WidgetCard>
  );
}
