import type { FenceShape } from '@cpc/contracts/fence';
import type { GeoShape } from './shapes';

/** A fence's shape from the API (`[lng, lat]`, GeoJSON order) as the map takes it. */
export function fromFenceShape(shape: FenceShape): GeoShape {
  if (shape.type === 'circle') {
    return { kind: 'circle', center: { lng: shape.center[0], lat: shape.center[1] }, radiusM: shape.radiusM };
  }
  const points = shape.ring.map(([lng, lat]) => ({ lng, lat }));
  const [first, last] = [points[0], points[points.length - 1]];
  // the server keeps rings closed; the map edits them open
  if (points.length > 3 && first.lat === last.lat && first.lng === last.lng) points.pop();
  return { kind: 'polygon', points };
}

/** A shape drawn on the map as the API takes it. */
export const toFenceShape = (shape: GeoShape): FenceShape =>
  shape.kind === 'circle'
    ? { type: 'circle', center: [shape.center.lng, shape.center.lat], radiusM: shape.radiusM }
    : { type: 'polygon', ring: shape.points.map((p) => [p.lng, p.lat] as [number, number]) };
