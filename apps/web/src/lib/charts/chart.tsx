import { Skeleton, theme as antdTheme } from 'antd';
import { lazy, Suspense, useMemo } from 'react';
import { withChunkTimeout } from '../lazy-chunk';
import type { EChartProps } from './echart';
import { CHART_TOKEN_KEYS, chartTheme, type ChartTokens } from './theme';

// ECharts loads with the first chart, in a chunk of its own: the page around it shows without waiting for it.
const EChart = lazy(withChunkTimeout(() => import('./echart')));

export type ChartTheme = { theme: Record<string, unknown>; tokens: ChartTokens };

/** The antd tokens as an ECharts theme; a new object only when a colour changes (light ↔ dark, theme colour). */
export function useChartTheme(): ChartTheme {
  const { token } = antdTheme.useToken();
  const values = CHART_TOKEN_KEYS.map((k) => token[k]);
  const signature = values.join('|');
  return useMemo(() => {
    const tokens = Object.fromEntries(CHART_TOKEN_KEYS.map((k, i) => [k, values[i]])) as ChartTokens;
    return { theme: chartTheme(tokens), tokens };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the signature stands for the token values read above
  }, [signature]);
}

export type ChartProps = Omit<EChartProps, 'theme'>;

/**
 * The one chart of the console: fluid in width and height, painted in the antd theme (light or dark), the ECharts
 * modules registered once. A skeleton of its size shows until the charting code (and, for `map`, the map) is in.
 */
export function Chart(props: ChartProps) {
  const { theme } = useChartTheme();
  return (
    <Suspense fallback={<Skeleton.Node active style={{ width: '100%', height: props.height }} />}>
      <EChart theme={theme} {...props} />
    </Suspense>
  );
}
