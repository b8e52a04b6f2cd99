import china from './china-provinces.json' with { type: 'json' };

/**
 * Provinces of China as GeoJSON (decoded from Apache ECharts 4's bundled map, Apache-2.0), shipped with the
 * project because no tile or map service can be reached. Coordinates are [lng, lat], 3 decimals.
 */
export interface ProvinceFeature {
  type: 'Feature';
  properties: { adcode: string; name: string; cp: [number, number] };
  geometry: { type: 'Polygon'; coordinates: number[][][] } | { type: 'MultiPolygon'; coordinates: number[][][][] };
}
export interface ProvinceCollection {
  type: 'FeatureCollection';
  features: ProvinceFeature[];
}

export const CHINA_PROVINCES = china as unknown as ProvinceCollection;

/** Ray casting over one ring. */
function inRing(lng: number, lat: number, ring: number[][]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if (yi > lat !== yj > lat && lng < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

const inPolygon = (lng: number, lat: number, rings: number[][][]): boolean =>
  inRing(lng, lat, rings[0]) && !rings.slice(1).some((hole) => inRing(lng, lat, hole));

/** The province (Chinese short name, e.g. 北京) containing a point, or '' outside China. */
export function provinceAt(lat: number, lng: number): string {
  for (const f of CHINA_PROVINCES.features) {
    const g = f.geometry;
    const polygons = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
    if (polygons.some((p) => inPolygon(lng, lat, p))) return f.properties.name;
  }
  return '';
}
