/**
 * Grid clustering of map markers: the map is cut into square cells (in degrees) whose size follows the zoom,
 * the points of a cell become one bubble at their centre, and bubbles of neighbouring cells closer than half a
 * cell are joined, so two devices on either side of a cell border do not show as two touching bubbles.
 * A few thousand devices cluster in well under a frame; a tile-based index would only pay off far beyond that.
 */

export interface ClusterPoint {
  id: number;
  lat: number;
  lng: number;
  status: 'online' | 'offline';
}

export interface Cluster<P extends ClusterPoint> {
  /** Stable while the same points share a cell: the cell of its first point. */
  key: string;
  lat: number;
  lng: number;
  points: P[];
  online: number;
}

/** Cell size at zoom 1 (China fills the map): about 40 px on a desktop-wide map. */
export const BASE_CELL_DEG = 2.4;
/** From this zoom on every device stands alone. */
export const SINGLE_ZOOM = 40;

export const cellDegForZoom = (zoom: number, base = BASE_CELL_DEG): number =>
  zoom >= SINGLE_ZOOM ? 0 : base / Math.max(zoom, 0.1);

interface Cell<P extends ClusterPoint> {
  key: string;
  x: number;
  y: number;
  points: P[];
  lat: number;
  lng: number;
}

function centre<P extends ClusterPoint>(points: P[]): { lat: number; lng: number } {
  let lat = 0;
  let lng = 0;
  for (const p of points) {
    lat += p.lat;
    lng += p.lng;
  }
  return { lat: lat / points.length, lng: lng / points.length };
}

export function clusterPoints<P extends ClusterPoint>(points: readonly P[], cellDeg: number): Cluster<P>[] {
  if (cellDeg <= 0)
    return points.map((p) => ({
      key: `p${p.id}`,
      lat: p.lat,
      lng: p.lng,
      points: [p],
      online: p.status === 'online' ? 1 : 0,
    }));
  const cells = new Map<string, Cell<P>>();
  for (const p of points) {
    const x = Math.floor(p.lng / cellDeg);
    const y = Math.floor(p.lat / cellDeg);
    const key = `${x}:${y}`;
    let cell = cells.get(key);
    if (!cell) cells.set(key, (cell = { key, x, y, points: [], lat: 0, lng: 0 }));
    cell.points.push(p);
  }
  for (const cell of cells.values()) Object.assign(cell, centre(cell.points));

  // join neighbours whose centres ended up close, each cell at most once, in a fixed order
  const ordered = [...cells.values()].sort((a, b) => a.x - b.x || a.y - b.y);
  const taken = new Set<string>();
  const out: Cluster<P>[] = [];
  const near = (cellDeg / 2) ** 2;
  for (const cell of ordered) {
    if (taken.has(cell.key)) continue;
    taken.add(cell.key);
    const group = [...cell.points];
    for (let dx = -1; dx <= 1; dx++) {
      for (let dy = -1; dy <= 1; dy++) {
        const other = cells.get(`${cell.x + dx}:${cell.y + dy}`);
        if (!other || taken.has(other.key)) continue;
        if ((other.lat - cell.lat) ** 2 + (other.lng - cell.lng) ** 2 < near) {
          taken.add(other.key);
          group.push(...other.points);
        }
      }
    }
    const c = centre(group);
    out.push({
      key: cell.key,
      lat: c.lat,
      lng: c.lng,
      points: group,
      online: group.filter((p) => p.status === 'online').length,
    });
  }
  return out;
}

/** Bubble diameter in px for a cluster of n devices: grows with the logarithm so 5,000 stays readable. */
export const bubbleSize = (n: number): number => (n <= 1 ? 12 : Math.round(Math.min(56, 22 + 8 * Math.log10(n) * 1.6)));

/** The zoom that spreads a cluster out when it is clicked. */
export const zoomInto = (zoom: number): number => Math.min(SINGLE_ZOOM, zoom * 2.5);

/** The view (centre and zoom) that shows a set of points, bounded to the map's zoom range. */
export function fitView(
  points: readonly { lat: number; lng: number }[],
  opts: { minZoom?: number; maxZoom?: number; spanAtZoom1?: number } = {},
): { center: [number, number]; zoom: number } | null {
  if (!points.length) return null;
  const { minZoom = 1, maxZoom = 12, spanAtZoom1 = 40 } = opts;
  let minLat = Infinity;
  let maxLat = -Infinity;
  let minLng = Infinity;
  let maxLng = -Infinity;
  for (const p of points) {
    minLat = Math.min(minLat, p.lat);
    maxLat = Math.max(maxLat, p.lat);
    minLng = Math.min(minLng, p.lng);
    maxLng = Math.max(maxLng, p.lng);
  }
  const span = Math.max(maxLat - minLat, maxLng - minLng, 0.0001);
  const zoom = Math.min(maxZoom, Math.max(minZoom, spanAtZoom1 / (span * 1.4)));
  return { center: [(minLng + maxLng) / 2, (minLat + maxLat) / 2], zoom };
}
