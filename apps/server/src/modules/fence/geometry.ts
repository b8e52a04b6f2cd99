import { kinks } from '@turf/kinks';
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { distance } from '@turf/distance';
import { point, polygon } from '@turf/helpers';
import { FENCE_DEFAULT_TZ, FENCE_MAX_VERTICES, type FenceSchedule, type FenceShape, type LngLat } from '@cpc/contracts';
import { badRequest } from '../../plugins/errors.ts';

/**
 * A fence's geometry without PostGIS (the embedded PostgreSQL has none): shapes are checked and tested with Turf in
 * Node, and a bounding box kept in SQL columns lets a query skip the fences whose box does not hold the point.
 * Coordinates are WGS-84 `[lng, lat]`; the antimeridian is not handled (a fence may not cross ±180°).
 */

export type Bbox = [minLng: number, minLat: number, maxLng: number, maxLat: number];

const METRES_PER_DEGREE_LAT = 111_320;

const samePoint = (a: LngLat, b: LngLat) => a[0] === b[0] && a[1] === b[1];

/** Twice the signed area of a ring in degree² (shoelace): 0 for a ring whose points lie on one line. */
function ringArea2(ring: LngLat[]): number {
  let s = 0;
  for (let i = 0; i < ring.length - 1; i++) s += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1];
  return s;
}

/**
 * The shape as stored: a polygon's ring without repeated consecutive points and closed (first point repeated last),
 * checked: ≥ 3 distinct points, ≤ FENCE_MAX_VERTICES, some area, no self-intersection (`@turf/kinks`). Each refusal
 * is a 400 naming `shape.ring`. A circle is checked by its schema (radius, centre in range).
 */
export function normalizeShape(shape: FenceShape): FenceShape {
  if (shape.type === 'circle') return { type: 'circle', center: shape.center, radiusM: shape.radiusM };
  const ring: LngLat[] = [];
  for (const p of shape.ring) if (!ring.length || !samePoint(ring[ring.length - 1], p)) ring.push([p[0], p[1]]);
  if (ring.length > 1 && samePoint(ring[0], ring[ring.length - 1])) ring.pop();
  const distinct = new Set(ring.map((p) => `${p[0]},${p[1]}`)).size;
  if (distinct < 3) throw badRequest('shape.ring', 'fence.ringTooFew');
  if (ring.length > FENCE_MAX_VERTICES) throw badRequest('shape.ring', 'fence.ringTooMany');
  ring.push(ring[0]);
  if (Math.abs(ringArea2(ring)) < 1e-14) throw badRequest('shape.ring', 'fence.ringFlat');
  const crossings = kinks(polygon([ring]));
  const first = crossings.features[0];
  if (first) {
    const [lng, lat] = first.geometry.coordinates;
    throw badRequest('shape.ring', 'fence.selfIntersecting', { lng: lng.toFixed(6), lat: lat.toFixed(6) });
  }
  return { type: 'polygon', ring };
}

/** The shape's bounding box; a circle's is widened by its radius (longitude by the latitude's cosine). */
export function bboxOf(shape: FenceShape): Bbox {
  if (shape.type === 'polygon') {
    let [minLng, minLat, maxLng, maxLat] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const [x, y] of shape.ring) {
      minLng = Math.min(minLng, x);
      maxLng = Math.max(maxLng, x);
      minLat = Math.min(minLat, y);
      maxLat = Math.max(maxLat, y);
    }
    return [minLng, minLat, maxLng, maxLat];
  }
  const [lng, lat] = shape.center;
  // a little more than the radius: the box must hold every point Turf calls inside
  const dLat = (shape.radiusM * 1.01) / METRES_PER_DEGREE_LAT;
  const cos = Math.cos((Math.min(89.9, Math.abs(lat)) * Math.PI) / 180);
  const dLng = Math.min(180, dLat / cos);
  return [Math.max(-180, lng - dLng), Math.max(-90, lat - dLat), Math.min(180, lng + dLng), Math.min(90, lat + dLat)];
}

/**
 * Whether a point is inside the shape. The edge counts as inside: a point on a polygon's boundary
 * (`booleanPointInPolygon` without `ignoreBoundary`), or exactly `radiusM` from a circle's centre (great-circle
 * distance, `@turf/distance`).
 */
export function contains(shape: FenceShape, lng: number, lat: number): boolean {
  if (shape.type === 'circle') {
    return distance(point(shape.center), point([lng, lat]), { units: 'meters' }) <= shape.radiusM;
  }
  return booleanPointInPolygon(point([lng, lat]), polygon([shape.ring]));
}

// ------------------------------------------------------------------------------------------------------------------
// Schedules

const formatters = new Map<string, Intl.DateTimeFormat>();
const WEEKDAY: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

/** The ISO weekday (1 = Monday) and minute of the day of `at` in the zone `tz`. */
function localTime(at: Date, tz: string): { day: number; minute: number } {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(tz, f);
  }
  const parts = Object.fromEntries(f.formatToParts(at).map((p) => [p.type, p.value]));
  return { day: WEEKDAY[parts.weekday] ?? 1, minute: Number(parts.hour) * 60 + Number(parts.minute) };
}

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * Whether the schedule applies at `at`. Weekly: on a listed day from `from` (inclusive) to `to` (exclusive) in its
 * zone; `to` before `from` runs past midnight (the part after midnight belongs to the day before); equal: all day.
 */
export function scheduleActive(schedule: FenceSchedule, at: Date = new Date()): boolean {
  if (schedule.kind === 'always') return true;
  const { day, minute } = localTime(at, schedule.tz ?? FENCE_DEFAULT_TZ);
  const from = minutes(schedule.from);
  const to = minutes(schedule.to);
  const days = new Set(schedule.days);
  if (from === to) return days.has(day);
  if (from < to) return days.has(day) && minute >= from && minute < to;
  const yesterday = day === 1 ? 7 : day - 1;
  return (days.has(day) && minute >= from) || (days.has(yesterday) && minute < to);
}
