import { use, type CSSProperties, type Ref } from 'react';
import ReactEChartsCore from 'echarts-for-react/esm/core';
import * as echarts from 'echarts/core';
import { BarChart, LineChart, MapChart, PieChart, ScatterChart } from 'echarts/charts';
import {
  GeoComponent,
  GridComponent,
  LegendComponent,
  TooltipComponent,
  VisualMapContinuousComponent,
} from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import { loadChinaMap, registerChinaMap } from './china-map';
import { FLUID_SIZE } from './fluid-size';

// What the console's charts draw, registered once for all of them: the dashboard (bars, lines, pie, the province
// map with its scale), the device pages (maps of markers on a geo, telemetry lines), the integration usage (bars).
// `echarts-for-react/esm/core`, never `lib/core`: the CommonJS build breaks the production bundle.
echarts.use([
  BarChart,
  LineChart,
  MapChart,
  PieChart,
  ScatterChart,
  GeoComponent,
  GridComponent,
  LegendComponent,
  TooltipComponent,
  VisualMapContinuousComponent,
  CanvasRenderer,
]);

export interface EChartProps {
  option: object;
  /** The ECharts theme (from the antd tokens: `useChartTheme`). */
  theme: Record<string, unknown>;
  /** CSS height of the chart; its width is the container's. Both follow the container (see FLUID_SIZE). */
  height: number | string;
  /** Draws on the map of China: suspends until its shapes are in. */
  map?: boolean;
  loading?: boolean;
  notMerge?: boolean;
  lazyUpdate?: boolean;
  onEvents?: Record<string, (params: never) => void>;
  chartRef?: Ref<ReactEChartsCore>;
  style?: CSSProperties;
  'aria-label'?: string;
  'data-testid'?: string;
}

/** ECharts through the core build, on a canvas; in a chunk of its own, loaded with the first chart. */
export default function EChart({
  option,
  theme,
  height,
  map,
  loading,
  notMerge,
  lazyUpdate,
  onEvents,
  chartRef,
  style,
  'aria-label': ariaLabel,
  'data-testid': testId,
}: EChartProps) {
  if (map) use(loadChinaMap());
  // a chart whose option names the map once `loadChinaMap` has it (the device pages wait with `useChinaMap`)
  registerChinaMap(echarts);
  return (
    <div
      role="img"
      aria-label={ariaLabel}
      data-chart={map ? 'map' : 'chart'}
      data-testid={testId}
      style={{ height, width: '100%', ...style }}
    >
      <ReactEChartsCore
        ref={chartRef}
        echarts={echarts}
        option={option}
        theme={theme}
        notMerge={notMerge}
        lazyUpdate={lazyUpdate}
        showLoading={loading}
        loadingOption={{
          text: '',
          color: (theme.color as string[] | undefined)?.[0],
          maskColor: 'rgba(127,127,127,0.08)',
        }}
        onEvents={onEvents}
        opts={FLUID_SIZE}
        style={{ height: '100%', width: '100%' }}
      />
    </div>
  );
}
