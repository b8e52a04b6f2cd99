import { describe, expect, it } from 'vitest';
import { distanceM, formatLatLng, toDisplay, toStored } from './coords';

// Published pair (wandergis/coordtransform's test): WGS-84 (116.404, 39.915) near Tiananmen is GCJ-02
// (116.41024449916938, 39.91640428150164) — about 570 m east-north-east on Amap's tiles.
const TIANANMEN_WGS = { lat: 39.915, lng: 116.404 };
const TIANANMEN_GCJ = { lat: 39.91640428150164, lng: 116.41024449916938 };

describe('GCJ-02 conversion', () => {
  it('puts a WGS-84 point where a Chinese provider draws it, within a metre of the published value', () => {
    const shown = toDisplay(TIANANMEN_WGS, 'gcj02');
    expect(distanceM(shown, TIANANMEN_GCJ)).toBeLessThan(1);
    // the offset it corrects is real: hundreds of metres
    expect(distanceM(TIANANMEN_WGS, TIANANMEN_GCJ)).toBeGreaterThan(500);
  });

  it('turns a point drawn on GCJ-02 tiles back into WGS-84 within a metre', () => {
    expect(distanceM(toStored(TIANANMEN_GCJ, 'gcj02'), TIANANMEN_WGS)).toBeLessThan(1);
  });

  it('round-trips points across the country within a metre', () => {
    const points = [
      { lat: 31.2304, lng: 121.4737 }, // Shanghai
      { lat: 22.5431, lng: 114.0579 }, // Shenzhen
      { lat: 43.8256, lng: 87.6168 }, // Ürümqi
      { lat: 45.8038, lng: 126.535 }, // Harbin
    ];
    for (const p of points) {
      const back = toStored(toDisplay(p, 'gcj02'), 'gcj02');
      expect(distanceM(back, p)).toBeLessThan(1);
    }
  });

  it('leaves points alone on WGS-84 tiles and outside China', () => {
    expect(toDisplay(TIANANMEN_WGS, 'wgs84')).toEqual(TIANANMEN_WGS);
    expect(toStored(TIANANMEN_GCJ, 'wgs84')).toEqual(TIANANMEN_GCJ);
    const paris = { lat: 48.8584, lng: 2.2945 };
    expect(toDisplay(paris, 'gcj02')).toEqual(paris);
    expect(toStored(paris, 'gcj02')).toEqual(paris);
  });
});

describe('distance and format', () => {
  it('measures a degree of latitude as about 111 km', () => {
    expect(distanceM({ lat: 30, lng: 120 }, { lat: 31, lng: 120 })).toBeCloseTo(111_195, -2);
  });
  it('shows six decimals', () => {
    expect(formatLatLng({ lat: 39.9, lng: 116.4 })).toBe('39.900000, 116.400000');
  });
});
