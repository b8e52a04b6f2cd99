import { Typography } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { DashboardOverview } from '@cpc/contracts/dashboard';
import { INSTALL_DAYS } from '@cpc/contracts/device-constants';
import { installSeries } from '../utils/dashboard-data';
import { Chart, type ChartTheme } from '@/lib/charts/chart';
import { WidgetCard } from './widget-card';

/** Devices bound per day over the last 30 days. */
export function InstallChart({
  installs,
  loading,
  chart,
}: {
  installs: DashboardOverview['installs'] | undefined;
  loading: boolean;
  chart: ChartTheme;
}) {
  const { t } = useTranslation();
  const series = useMemo(() => installSeries(installs ?? []), [installs]);
  const option = useMemo(
    () => ({
      tooltip: { trigger: 'axis' },
      grid: { left: 4, right: 8, top: 16, bottom: 4 },
      xAxis: { type: 'category', data: series.labels, axisLabel: { hideOverlap: true } },
      yAxis: { type: 'value', minInterval: 1 },
      series: [
        {
          name: t('dashboard.installs.series'),
          type: 'bar',
          barMaxWidth: 14,
          itemStyle: { borderRadius: [3, 3, 0, 0], color: chart.tokens.cyan },
          data: series.counts,
        },
      ],
    }),
    [series, t, chart.tokens],
  );
  return (
    <WidgetCard
      testId="widget-installs"
      loading={loading}
      title={t('dashboard.installs.title', { days: INSTALL_DAYS })}
      extra={<Typography.Text type="secondary">{t('dashboard.installs.total', { n: series.total })}</Typography.Text>}
      empty={series.empty ? t('dashboard.installs.empty', { days: INSTALL_DAYS }) : undefined}
    >
      <Chart option={option} height={240} aria-label={t('dashboard.installs.title', { days: INSTALL_DAYS })} />
    </WidgetCard>
  );
}
