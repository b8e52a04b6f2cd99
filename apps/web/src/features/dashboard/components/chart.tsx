import { Skeleton, theme as antdTheme } from 'antd';
import { lazy, Suspense, useMemo } from 'react';
import { withChunkTimeout } from '@/lib/lazy-chunk';
import { CHART_TOKEN_KEYS, chartTheme, type ChartTokens } from '../utils/chart-theme';
import type { EChartProps } from './echart';

// ECharts loads with the first chart, in a chunk of its own: the cards and lists show without waiting for it.
const EChart = lazy(withChunkTimeout(() => import('./echart')));

export type ChartTheme = { theme: Record<string, unknown>; tokens: ChartTokens };

/** The antd tokens as an ECharts theme; a new object only when a colour changes (light ↔ dark, theme). */
export function useChartTheme(): ChartTheme {
  const { token } = antdTheme.useToken();
  const values = CHART_TOKEN_KEYS.map((k) => token[k]);
  const signature = values.join('|');
  return useMemo(() => {
    const tokens = Object.fromEntries(CHART_TOKEN_KEYS.map((k, i) => [k, values[i]])) as ChartTokens;
    return { theme: chartTheme(tokens), tokens };
    // the signature stands for the token values read above
  }, [signature]);
}

/** A chart that shows a skeleton of its own size until the charting code (and the map) have arrived. */
export function Chart(props: EChartProps) {
  return (
    <Suspense fallback={<Skeleton.Node active style={{ width: '100%', height: props.height }} />}>
      <EChart {...props} />
    </Suspense>
  );
}
