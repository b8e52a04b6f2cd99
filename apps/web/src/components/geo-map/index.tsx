import { Skeleton } from 'antd';
import { lazy, Suspense, type Ref } from 'react';
import { withChunkTimeout } from '@/lib/lazy-chunk';
import type { GeoMapHandle, GeoMapProps } from './types';

export type { GeoMapHandle, GeoMapProps, MapFence, MapMarker } from './types';
export type { GeoShape } from './shapes';
export type { LatLng, TileCrs } from './coords';
export { shapeComplete } from './shapes';
export { fromFenceShape, toFenceShape } from './fence-shape';

/** Leaflet and Geoman (≈ 250 kB) come with the first map, not with the page that shows one. */
const Map = lazy(withChunkTimeout(() => import('./geo-map')));

/** The console's map (see geo-map.tsx), loaded on first use. */
export function GeoMap(props: GeoMapProps & { ref?: Ref<GeoMapHandle> }) {
  const height = props.height ?? 420;
  return (
    <Suspense fallback={<Skeleton.Node active style={{ width: '100%', height }} />}>
      <Map {...props} />
    </Suspense>
  );
}
