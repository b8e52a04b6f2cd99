import { Skeleton } from 'antd';
import { lazy, Suspense } from 'react';
import { withChunkTimeout } from '@/lib/lazy-chunk';
import type { EChartCanvasProps } from '../charts/echart-canvas';

const EChartCanvas = lazy(withChunkTimeout(() => import('../charts/echart-canvas')));

/** A chart of this section: a skeleton of its size until the charting code has arrived. */
export function EChart(props: EChartCanvasProps) {
  const height = props.style?.height ?? 240;
  return (
    <Suspense fallback={<Skeleton.Node active style={{ width: '100%', height }} />}>
      <EChartCanvas {...props} />
    </Suspense>
  );
}
