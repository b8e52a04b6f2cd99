import { use, type CSSProperties } from 'react';
import ReactEChartsCore from 'echarts-for-react/esm/core';
import * as echarts from 'echarts/core';
import { BarChart, LineChart, MapChart, PieChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent, VisualMapContinuousComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import { loadChinaMap, registerChinaMap } from '@/lib/charts/china-map';
import { FLUID_SIZE } from '@/lib/charts/fluid-size';

// Only what the dashboard draws: this chunk is the charting code the home page waits for.
echarts.use([BarChart, LineChart, MapChart, PieChart, GridComponent, LegendComponent, TooltipComponent, VisualMapContinuousComponent, CanvasRenderer]);

const SVG_OPTS = { renderer: 'svg', ...FLUID_SIZE } as const;

export interface EChartProps {
  option: Record<string, unknown>;
  theme: Record<string, unknown>;
  height: number;
  /** Draws on the map of China (suspends until its shapes are in). */
  map?: boolean;
  loading?: boolean;
  onEvents?: Record<string, (params: unknown) => void>;
  style?: CSSProperties;
  'aria-label'?: string;
}

/** ECharts through the core build (SVG: crisp at any zoom and light on memory). */
export default function EChart({ option, theme, height, map, loading, onEvents, style, 'aria-label': ariaLabel }: EChartProps) {
  if (map) {
    use(loadChinaMap());
    registerChinaMap(echarts);
  }
  return (
    <div role="img" aria-label={ariaLabel} data-chart={map ? 'map' : 'chart'}>
      <ReactEChartsCore
        echarts={echarts}
        option={option}
        theme={theme}
        notMerge
        showLoading={loading}
        loadingOption={{ text: '', color: (theme.color as string[] | undefined)?.[0], maskColor: 'rgba(127,127,127,0.08)' }}
        onEvents={onEvents}
        opts={SVG_OPTS}
        style={{ height, width: '100%', ...style }}
      />
    </div>
  );
}
