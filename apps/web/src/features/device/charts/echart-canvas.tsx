import { LineChart, ScatterChart } from 'echarts/charts';
import { GeoComponent, GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import ReactEChartsCore from 'echarts-for-react/esm/core';
import type { CSSProperties, Ref } from 'react';
import { FLUID_SIZE } from '@/lib/charts/fluid-size';
import { registerChinaMap } from '@/lib/charts/china-map';

/** Only what this section draws: the maps (geo, scatter markers) and the telemetry (lines on a grid), on a canvas. */
echarts.use([GeoComponent, ScatterChart, LineChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer]);

export interface EChartCanvasProps {
  option: object;
  onEvents?: Record<string, (params: never) => void>;
  style?: CSSProperties;
  notMerge?: boolean;
  lazyUpdate?: boolean;
  chartRef?: Ref<ReactEChartsCore>;
  'data-testid'?: string;
}

/**
 * The section's chart, in a chunk of its own with ECharts (loaded by the first chart, after the page is on
 * screen: issue 3's page budget). A map chart is drawn once `loadChinaMap` has the provinces.
 */
export default function EChartCanvas({ chartRef, ...props }: EChartCanvasProps) {
  registerChinaMap(echarts);
  return <ReactEChartsCore ref={chartRef} echarts={echarts} opts={FLUID_SIZE} {...props} />;
}
