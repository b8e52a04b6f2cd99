import { describe, expect, it } from 'vitest';
import { fromFenceShape, toFenceShape } from './fence-shape';

describe('fence shape ↔ map shape', () => {
  it('swaps GeoJSON [lng, lat] into points and back', () => {
    const circle = { type: 'circle' as const, center: [121.47, 31.23] as [number, number], radiusM: 300 };
    expect(fromFenceShape(circle)).toEqual({ kind: 'circle', center: { lat: 31.23, lng: 121.47 }, radiusM: 300 });
    expect(toFenceShape(fromFenceShape(circle))).toEqual(circle);
  });

  it('opens a closed ring for editing and sends it open', () => {
    const ring: [number, number][] = [
      [121.47, 31.23],
      [121.48, 31.23],
      [121.48, 31.24],
      [121.47, 31.23],
    ];
    const shape = fromFenceShape({ type: 'polygon', ring });
    expect(shape).toEqual({
      kind: 'polygon',
      points: [
        { lng: 121.47, lat: 31.23 },
        { lng: 121.48, lat: 31.23 },
        { lng: 121.48, lat: 31.24 },
      ],
    });
    expect(toFenceShape(shape)).toEqual({ type: 'polygon', ring: ring.slice(0, 3) });
  });
});
