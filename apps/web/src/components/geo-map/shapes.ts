import { toDisplay, toStored, type LatLng, type TileCrs } from './coords';

/** A fence's outline as stored: WGS-84 points, a circle's radius in metres. */
export type GeoShape = { kind: 'circle'; center: LatLng; radiusM: number } | { kind: 'polygon'; points: LatLng[] };

/** The same outline in the coordinates of the tiles it is drawn on. */
export type DisplayShape = GeoShape;

/** What Leaflet is given to draw a stored shape on tiles of `crs`. */
export function displayShape(shape: GeoShape, crs: TileCrs): DisplayShape {
  return shape.kind === 'circle'
    ? { kind: 'circle', center: toDisplay(shape.center, crs), radiusM: shape.radiusM }
    : { kind: 'polygon', points: shape.points.map((p) => toDisplay(p, crs)) };
}

/** Rounds to 7 decimals (≈ 1 cm): what a drawn point is worth, and no float noise in the saved JSON. */
const round7 = (n: number) => Math.round(n * 1e7) / 1e7;
const stored = (p: LatLng, crs: TileCrs): LatLng => {
  const s = toStored(p, crs);
  return { lat: round7(s.lat), lng: round7(s.lng) };
};

/** A circle drawn or edited on the map (its centre in tile coordinates) as it is stored. */
export const circleFromMap = (center: LatLng, radiusM: number, crs: TileCrs): GeoShape => ({
  kind: 'circle',
  center: stored(center, crs),
  radiusM: Math.round(radiusM * 10) / 10,
});

/**
 * A polygon drawn or edited on the map as it is stored: Leaflet gives the outer ring (possibly nested in an array,
 * possibly closed by repeating the first point); the stored ring is open, without consecutive duplicates.
 */
export function polygonFromMap(latlngs: LatLng[] | LatLng[][], crs: TileCrs): GeoShape {
  const ring = (Array.isArray(latlngs[0]) ? (latlngs as LatLng[][])[0] : (latlngs as LatLng[])).map((p) =>
    stored(p, crs),
  );
  const points = ring.filter((p, i) => i === 0 || p.lat !== ring[i - 1].lat || p.lng !== ring[i - 1].lng);
  const [first, last] = [points[0], points[points.length - 1]];
  if (points.length > 1 && first.lat === last.lat && first.lng === last.lng) points.pop();
  return { kind: 'polygon', points };
}

/** South-west and north-east corners around a stored shape (a circle's box is its radius around the centre). */
export function shapeBounds(shape: GeoShape): [LatLng, LatLng] {
  if (shape.kind === 'circle') {
    const dLat = shape.radiusM / 111_320;
    const dLng = shape.radiusM / (111_320 * Math.max(0.01, Math.cos((shape.center.lat * Math.PI) / 180)));
    return [
      { lat: shape.center.lat - dLat, lng: shape.center.lng - dLng },
      { lat: shape.center.lat + dLat, lng: shape.center.lng + dLng },
    ];
  }
  const lats = shape.points.map((p) => p.lat);
  const lngs = shape.points.map((p) => p.lng);
  return [
    { lat: Math.min(...lats), lng: Math.min(...lngs) },
    { lat: Math.max(...lats), lng: Math.max(...lngs) },
  ];
}

/** Whether a shape is worth saving: a positive radius, or three distinct points. */
export const shapeComplete = (shape: GeoShape | null | undefined): shape is GeoShape =>
  !!shape && (shape.kind === 'circle' ? shape.radiusM > 0 : shape.points.length >= 3);
