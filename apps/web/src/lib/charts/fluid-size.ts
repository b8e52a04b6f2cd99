/**
 * Init options for echarts-for-react that keep a chart measuring its element. Without them the wrapper
 * (3.0.x) re-creates the chart with the width and height it measured first, fixed for good: a chart first
 * drawn in a page still hidden stays 0 × 0 (empty until a reload), and none follows a narrower window.
 */
export const FLUID_SIZE = { width: 'auto', height: 'auto' } as const;
