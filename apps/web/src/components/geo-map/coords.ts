import gcoord from 'gcoord';

/**
 * Coordinates are stored in WGS-84 (what a device's GPS reports). Chinese tile providers (AutoNavi/Amap, Tencent)
 * draw their tiles in GCJ-02, offset by a few hundred metres: on their tiles a point is shown at its GCJ-02
 * position and a point drawn on them is turned back into WGS-84. The offline base layer is WGS-84.
 */
export type TileCrs = 'wgs84' | 'gcj02';

export interface LatLng {
  lat: number;
  lng: number;
}

/** Whether a point is inside mainland China's rough box, the only place GCJ-02 shifts anything. */
const inChina = ({ lat, lng }: LatLng): boolean => lng > 72.004 && lng < 137.8347 && lat > 0.8293 && lat < 55.8271;

/** A stored (WGS-84) point where the map's tiles draw it. */
export function toDisplay(p: LatLng, crs: TileCrs): LatLng {
  if (crs === 'wgs84' || !inChina(p)) return { lat: p.lat, lng: p.lng };
  const [lng, lat] = gcoord.transform<[number, number]>([p.lng, p.lat], gcoord.WGS84, gcoord.GCJ02);
  return { lat, lng };
}

/** A point on the map's tiles as it is stored (WGS-84). */
export function toStored(p: LatLng, crs: TileCrs): LatLng {
  if (crs === 'wgs84' || !inChina(p)) return { lat: p.lat, lng: p.lng };
  const [lng, lat] = gcoord.transform<[number, number]>([p.lng, p.lat], gcoord.GCJ02, gcoord.WGS84);
  return { lat, lng };
}

/** Distance in metres between two points (haversine, mean earth radius). */
export function distanceM(a: LatLng, b: LatLng): number {
  const r = 6_371_008.8;
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * r * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A coordinate as shown under the cursor: 6 decimals (≈ 0.1 m). */
export const formatLatLng = ({ lat, lng }: LatLng): string => `${lat.toFixed(6)}, ${lng.toFixed(6)}`;
