import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { DashboardOverview } from '@cpc/contracts/dashboard';
import { OTHER_VERSIONS, escapeHtml, versionSlices } from '../utils/dashboard-data';
import { Chart, type ChartTheme } from '@/lib/charts/chart';
import { WidgetCard } from './widget-card';

/** Firmware versions across the fleet, as a donut. */
export function VersionChart({
  versions,
  loading,
  chart,
}: {
  versions: DashboardOverview['versions'] | undefined;
  loading: boolean;
  chart: ChartTheme;
}) {
  const { t } = useTranslation();
  const slices = useMemo(() => versionSlices(versions ?? []), [versions]);
  const option = useMemo(() => {
    const nameOf = (firmware: string) =>
      firmware === OTHER_VERSIONS
        ? t('dashboard.versions.other')
        : firmware === ''
          ? t('dashboard.versions.unknown')
          : firmware;
    return {
      tooltip: {
        trigger: 'item',
        formatter: (p: { name: string; percent: number; data: { value: number; online: number } }) =>
          [
            `<b>${escapeHtml(p.name)}</b>`,
            t('dashboard.versions.devices', { n: p.data.value, percent: p.percent }),
            t('dashboard.versions.online', { n: p.data.online }),
          ].join('<br/>'),
      },
      legend: { type: 'scroll', orient: 'horizontal', bottom: 0 },
      series: [
        {
          type: 'pie',
          radius: ['45%', '70%'],
          center: ['50%', '44%'],
          avoidLabelOverlap: true,
          itemStyle: { borderColor: chart.tokens.colorBgContainer, borderWidth: 2 },
          // shares inside the ring, names in the legend: outer labels did not fit a narrow card and showed "…"
          label: { show: true, position: 'inside', formatter: '{d}%', color: '#fff', fontWeight: 600 },
          labelLine: { show: false },
          data: slices.map((s) => ({ name: nameOf(s.firmware), value: s.count, online: s.online })),
        },
      ],
    };
  }, [slices, t, chart.tokens]);
  return (
    <WidgetCard
      testId="widget-versions"
      loading={loading}
      title={t('dashboard.versions.title')}
      empty={slices.length === 0 ? t('dashboard.versions.empty') : undefined}
    >
      <Chart option={option} height={300} aria-label={t('dashboard.versions.title')} />
    </WidgetCard>
  );
}
