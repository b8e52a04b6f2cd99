import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { ReleaseDetail } from '@cpc/contracts/upgrade';
import { Chart } from '@/lib/charts/chart';

/** The points of the chart: the server's timeline of finished devices, then now with the devices under way. */
export function chartPoints(r: Pick<ReleaseDetail, 'timeline' | 'counts' | 'finishedAt'>, now: number) {
  const c = r.counts;
  const active = c.downloading + c.downloaded + c.installing + c.rebooting;
  const points = r.timeline.map((p) => ({ at: Date.parse(p.at), verified: p.verified, failed: p.failed, active: 0 }));
  const last = points.at(-1);
  const at = r.finishedAt ? Date.parse(r.finishedAt) : now;
  if (last && at > last.at) points.push({ at, verified: c.verified, failed: c.failed, active });
  else if (last) last.active = active;
  return points;
}

/** Verified, in-progress and failed devices of the release over time; it moves with every live event. */
export function ProgressChart({ release }: { release: ReleaseDetail }) {
  const { t } = useTranslation();
  const option = useMemo(() => {
    const points = chartPoints(release, Date.now());
    return {
      tooltip: { trigger: 'axis' },
      legend: { bottom: 0 },
      grid: { left: 8, right: 16, top: 24, bottom: 48, containLabel: true },
      xAxis: { type: 'time', axisLabel: { hideOverlap: true } },
      yAxis: { type: 'value', minInterval: 1, max: release.total || undefined },
      series: (
        [
          ['verified', t('upgrade.detail.chartDone'), '#52c41a'],
          ['active', t('upgrade.detail.chartActive'), '#1677ff'],
          ['failed', t('upgrade.detail.chartFailed'), '#ff4d4f'],
        ] as const
      ).map(([key, name, color]) => ({
        name,
        type: 'line',
        step: 'end',
        showSymbol: false,
        itemStyle: { color },
        areaStyle: key === 'verified' ? { opacity: 0.12 } : undefined,
        data: points.map((p) => [p.at, p[key]]),
      })),
    };
  }, [release, t]);
  return <Chart option={option} height={260} data-testid="release-chart" aria-label={t('upgrade.detail.chart')} />;
}
