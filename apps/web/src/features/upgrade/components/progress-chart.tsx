import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ReleaseDetail } from '@cpc/contracts/upgrade';
import { Chart } from '@/lib/charts/chart';

interface Sample {
  at: number;
  done: number;
  active: number;
  failed: number;
}

/** Most samples kept (one per change of the counts). */
const MAX_SAMPLES = 300;

/** Adds a sample when the release's counts changed since the last one. */
export function nextSamples(samples: Sample[], r: Pick<ReleaseDetail, 'counts'>, at: number): Sample[] {
  const c = r.counts;
  const s = {
    at,
    done: c.verified,
    active: c.downloading + c.downloaded + c.installing + c.rebooting,
    failed: c.failed,
  };
  const last = samples.at(-1);
  if (last && last.done === s.done && last.active === s.active && last.failed === s.failed) return samples;
  return [...samples, s].slice(-MAX_SAMPLES);
}

/** The release's verified, in-progress and failed devices over time, drawn as its counts change (live). */
export function ProgressChart({ release }: { release: ReleaseDetail }) {
  const { t } = useTranslation();
  const [samples, setSamples] = useState<Sample[]>([]);
  useEffect(() => setSamples((s) => nextSamples(s, release, Date.now())), [release]);
  const option = useMemo(
    () => ({
      tooltip: { trigger: 'axis' },
      legend: { bottom: 0 },
      grid: { left: 8, right: 16, top: 24, bottom: 48, containLabel: true },
      xAxis: { type: 'time' },
      yAxis: { type: 'value', minInterval: 1, max: release.total || undefined },
      series: [
        { key: 'done', name: t('upgrade.detail.chartDone'), color: '#52c41a' },
        { key: 'active', name: t('upgrade.detail.chartActive'), color: '#1677ff' },
        { key: 'failed', name: t('upgrade.detail.chartFailed'), color: '#ff4d4f' },
      ].map((x) => ({
        name: x.name,
        type: 'line',
        step: 'end',
        showSymbol: false,
        itemStyle: { color: x.color },
        areaStyle: x.key === 'done' ? { opacity: 0.12 } : undefined,
        data: samples.map((s) => [s.at, s[x.key as 'done' | 'active' | 'failed']]),
      })),
    }),
    [samples, release.total, t],
  );
  return <Chart option={option} height={260} data-testid="release-chart" aria-label={t('upgrade.detail.chart')} />;
}
