import { ScatterChart } from 'echarts/charts';
import { GeoComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { useEffect, useState } from 'react';

/** Only what the maps draw: the geo component, scatter markers and tooltips on a canvas. */
echarts.use([GeoComponent, ScatterChart, TooltipComponent, CanvasRenderer]);

export { echarts };

/** Our own name for the map, so it cannot collide with a map another page registers. */
export const CHINA_MAP = 'cpc-device-china';

/** Centre of the whole map at zoom 1 (lng, lat), and the range the user may zoom over. */
export const CHINA_CENTER: [number, number] = [104.5, 36];
export const MIN_ZOOM = 1;
export const MAX_ZOOM = 60;

let loading: Promise<Map<string, [number, number]>> | null = null;

/**
 * The provinces' GeoJSON (≈270 kB, shipped in contracts because no tile service can be reached) is loaded on
 * first use, not with the console: registers the map and answers each province's label point.
 */
export function loadChinaMap(): Promise<Map<string, [number, number]>> {
  loading ??= import('@cpc/contracts/geo/provinces').then(
    ({ CHINA_PROVINCES }) => {
      echarts.registerMap(CHINA_MAP, CHINA_PROVINCES as unknown as Parameters<typeof echarts.registerMap>[1]);
      return new Map(CHINA_PROVINCES.features.map((f) => [f.properties.name, f.properties.cp]));
    },
    (error: unknown) => {
      // a failed download may succeed when the page is opened again
      loading = null;
      throw error;
    },
  );
  return loading;
}

/** Whether the map is registered, and the provinces' label points once it is. */
export function useChinaMap(): { ready: boolean; failed: boolean; centres: Map<string, [number, number]> | null } {
  const [state, setState] = useState<{ centres: Map<string, [number, number]> | null; failed: boolean }>({ centres: null, failed: false });
  useEffect(() => {
    let alive = true;
    loadChinaMap().then(
      (centres) => alive && setState({ centres, failed: false }),
      () => alive && setState({ centres: null, failed: true }),
    );
    return () => {
      alive = false;
    };
  }, []);
  return { ready: !!state.centres, failed: state.failed, centres: state.centres };
}
