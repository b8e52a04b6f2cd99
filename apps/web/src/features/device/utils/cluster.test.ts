import { describe, expect, it } from 'vitest';
import { bubbleSize, cellDegForZoom, clusterPoints, fitView, SINGLE_ZOOM, type ClusterPoint } from './cluster';

const p = (id: number, lat: number, lng: number, status: ClusterPoint['status'] = 'online'): ClusterPoint => ({
  id,
  lat,
  lng,
  status,
});

// Shanghai, Suzhou (80 km away), Beijing, Guangzhou
const shanghai = [p(1, 31.23, 121.47), p(2, 31.24, 121.48, 'offline'), p(3, 31.22, 121.46)];
const suzhou = [p(4, 31.3, 120.62)];
const beijing = [p(5, 39.9, 116.4, 'offline')];
const guangzhou = [p(6, 23.13, 113.26)];
const fleet = [...shanghai, ...suzhou, ...beijing, ...guangzhou];

const sizes = (clusters: ReturnType<typeof clusterPoints>) =>
  clusters.map((c) => c.points.map((x) => x.id).sort((a, b) => a - b));

describe('grid clustering of map markers', () => {
  it('groups the devices of a city into one bubble with its count and online count, at its centre', () => {
    const clusters = clusterPoints(fleet, cellDegForZoom(1));
    const sh = clusters.find((c) => c.points.some((x) => x.id === 1))!;
    expect(sh.points.map((x) => x.id).sort()).toEqual([1, 2, 3, 4]);
    expect(sh.online).toBe(3);
    expect(sh.lat).toBeCloseTo((31.23 + 31.24 + 31.22 + 31.3) / 4, 5);
    expect(clusters).toHaveLength(3);
  });

  it('splits bubbles apart as the map zooms in, until every device stands alone', () => {
    expect(sizes(clusterPoints(fleet, cellDegForZoom(6)))).toEqual(expect.arrayContaining([[1, 2, 3], [4], [5], [6]]));
    const single = clusterPoints(fleet, cellDegForZoom(SINGLE_ZOOM));
    expect(single).toHaveLength(fleet.length);
    expect(single.every((c) => c.points.length === 1)).toBe(true);
  });

  it('joins points that straddle a cell border', () => {
    // 0.01° apart, on both sides of the border at lng 120 for cells of 2.4°
    const clusters = clusterPoints([p(1, 30, 119.995), p(2, 30, 120.005)], 2.4);
    expect(sizes(clusters)).toEqual([[1, 2]]);
  });

  it('gives the same clusters whatever order the points come in', () => {
    const a = clusterPoints(fleet, 2.4).map((c) => [c.key, c.points.length]);
    const b = clusterPoints([...fleet].reverse(), 2.4).map((c) => [c.key, c.points.length]);
    expect(b).toEqual(a);
  });

  it('has nothing to show for no devices', () => {
    expect(clusterPoints([], 2.4)).toEqual([]);
    expect(fitView([])).toBeNull();
  });

  it('draws bigger bubbles for bigger clusters, within bounds', () => {
    expect(bubbleSize(1)).toBeLessThan(bubbleSize(2));
    expect(bubbleSize(10)).toBeLessThan(bubbleSize(1000));
    expect(bubbleSize(1_000_000)).toBeLessThanOrEqual(56);
  });

  it('fits a view around the points, closer for points close together', () => {
    const wide = fitView(fleet)!;
    const city = fitView(shanghai)!;
    expect(city.zoom).toBeGreaterThan(wide.zoom);
    expect(city.center[0]).toBeCloseTo(121.47, 1);
    expect(city.center[1]).toBeCloseTo(31.23, 1);
    expect(fitView([p(1, 31, 121)], { maxZoom: 8 })!.zoom).toBe(8);
  });
});
