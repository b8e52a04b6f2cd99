import { describe, expect, it } from 'vitest';
import { distanceM } from './coords';
import { circleFromMap, displayShape, polygonFromMap, shapeBounds, shapeComplete, type GeoShape } from './shapes';

const square: GeoShape = {
  kind: 'polygon',
  points: [
    { lat: 31.23, lng: 121.47 },
    { lat: 31.23, lng: 121.48 },
    { lat: 31.24, lng: 121.48 },
    { lat: 31.24, lng: 121.47 },
  ],
};

describe('shape ↔ layer', () => {
  it('draws a stored shape as it is on WGS-84 tiles', () => {
    expect(displayShape(square, 'wgs84')).toEqual(square);
  });

  it('moves every point onto GCJ-02 tiles and brings a drawn polygon back where it was', () => {
    const shown = displayShape(square, 'gcj02');
    if (shown.kind !== 'polygon') throw new Error('kind');
    expect(distanceM(shown.points[0], square.points[0])).toBeGreaterThan(300);
    const back = polygonFromMap(shown.points, 'gcj02');
    if (back.kind !== 'polygon' || square.kind !== 'polygon') throw new Error('kind');
    back.points.forEach((p, i) => expect(distanceM(p, square.points[i])).toBeLessThan(1));
  });

  it('keeps a circle radius and converts its centre', () => {
    const circle: GeoShape = { kind: 'circle', center: { lat: 39.915, lng: 116.404 }, radiusM: 250 };
    const shown = displayShape(circle, 'gcj02');
    if (shown.kind !== 'circle') throw new Error('kind');
    expect(shown.radiusM).toBe(250);
    const back = circleFromMap(shown.center, 250.04, 'gcj02');
    if (back.kind !== 'circle') throw new Error('kind');
    expect(distanceM(back.center, circle.center)).toBeLessThan(1);
    expect(back.radiusM).toBe(250);
  });

  it("reads Leaflet's nested, closed ring as an open ring without repeated points", () => {
    const ring = [
      { lat: 1, lng: 1 },
      { lat: 1, lng: 2 },
      { lat: 1, lng: 2 },
      { lat: 2, lng: 2 },
      { lat: 1, lng: 1 },
    ];
    expect(polygonFromMap([ring], 'wgs84')).toEqual({
      kind: 'polygon',
      points: [
        { lat: 1, lng: 1 },
        { lat: 1, lng: 2 },
        { lat: 2, lng: 2 },
      ],
    });
  });

  it('rounds drawn points to 7 decimals', () => {
    const shape = circleFromMap({ lat: 30.123456789, lng: 120.987654321 }, 10, 'wgs84');
    expect(shape).toEqual({ kind: 'circle', center: { lat: 30.1234568, lng: 120.9876543 }, radiusM: 10 });
  });
});

describe('bounds and completeness', () => {
  it('boxes a circle by its radius', () => {
    const [sw, ne] = shapeBounds({ kind: 'circle', center: { lat: 30, lng: 120 }, radiusM: 1000 });
    expect(distanceM(sw, { lat: 30, lng: sw.lng })).toBeCloseTo(distanceM(ne, { lat: 30, lng: ne.lng }), 0);
    expect(distanceM({ lat: sw.lat, lng: 120 }, { lat: 30, lng: 120 })).toBeCloseTo(1000, -1);
  });
  it('boxes a polygon by its extremes', () => {
    expect(shapeBounds(square)).toEqual([
      { lat: 31.23, lng: 121.47 },
      { lat: 31.24, lng: 121.48 },
    ]);
  });
  it('needs a positive radius or three points', () => {
    expect(shapeComplete(null)).toBe(false);
    expect(shapeComplete({ kind: 'circle', center: { lat: 0, lng: 0 }, radiusM: 0 })).toBe(false);
    expect(shapeComplete({ kind: 'polygon', points: square.kind === 'polygon' ? square.points.slice(0, 2) : [] })).toBe(
      false,
    );
    expect(shapeComplete(square)).toBe(true);
  });
});
