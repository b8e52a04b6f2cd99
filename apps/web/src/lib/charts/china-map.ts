import { useEffect, useState } from 'react';
import type * as Echarts from 'echarts/core';

/**
 * The one map of China of the console (the dashboard's and the device pages'). ECharts adds the South China
 * Sea islands inset to a map registered under exactly this name, and a map of China is not published without it.
 */
export const CHINA_MAP = 'china';

/** The name ECharts gives the South China Sea islands inset it adds to that map: a map's `nameMap` translates it. */
export const SOUTH_CHINA_SEA = '南海诸岛';

/** Centre of the whole map at zoom 1 (lng, lat), and the range the user may zoom over. */
export const CHINA_CENTER: [number, number] = [104.5, 36];
export const MIN_ZOOM = 1;
export const MAX_ZOOM = 60;

type Provinces = (typeof import('@cpc/contracts/geo/provinces'))['CHINA_PROVINCES'];

export interface ChinaMapData {
  geo: Provinces;
  /** Each province's label point (lng, lat). */
  centres: Map<string, [number, number]>;
}

let loading: Promise<ChinaMapData> | null = null;
let loaded: ChinaMapData | null = null;

/**
 * The provinces' GeoJSON (≈270 kB, shipped in contracts because no tile service can be reached), loaded on
 * first use, not with the console. The chart code (ECharts) comes apart from it, with the first chart.
 */
export function loadChinaMap(): Promise<ChinaMapData> {
  loading ??= import('@cpc/contracts/geo/provinces').then(
    ({ CHINA_PROVINCES }) => {
      loaded = {
        geo: CHINA_PROVINCES,
        centres: new Map(CHINA_PROVINCES.features.map((f) => [f.properties.name, f.properties.cp])),
      };
      return loaded;
    },
    (error: unknown) => {
      // a failed download may succeed when the page is opened again
      loading = null;
      throw error;
    },
  );
  return loading;
}

/** The map's data once `loadChinaMap` has it. */
export const chinaMapLoaded = (): ChinaMapData | null => loaded;

let registered = false;

/** Registers the map with ECharts once its data is in (every chart chunk shares one `echarts/core`); false before. */
export function registerChinaMap(echarts: typeof Echarts): boolean {
  if (!loaded) return false;
  if (!registered) {
    echarts.registerMap(CHINA_MAP, loaded.geo as unknown as Parameters<typeof echarts.registerMap>[1]);
    registered = true;
  }
  return true;
}

/** Whether the map's data is in, and the provinces' label points once it is. */
export function useChinaMap(): { ready: boolean; failed: boolean; centres: Map<string, [number, number]> | null } {
  const [state, setState] = useState<{ centres: Map<string, [number, number]> | null; failed: boolean }>(() => ({
    centres: loaded?.centres ?? null,
    failed: false,
  }));
  useEffect(() => {
    let alive = true;
    loadChinaMap().then(
      (data) => alive && setState({ centres: data.centres, failed: false }),
      () => alive && setState({ centres: null, failed: true }),
    );
    return () => {
      alive = false;
    };
  }, []);
  return { ready: !!state.centres, failed: state.failed, centres: state.centres };
}

/** Text put into a chart's HTML tooltip. */
export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
