import L from './leaflet-global';
import '@geoman-io/leaflet-geoman-free';
import 'leaflet/dist/leaflet.css';
import '@geoman-io/leaflet-geoman-free/dist/leaflet-geoman.css';
import { Tag, theme } from 'antd';
import { useEffect, useImperativeHandle, useMemo, useRef, useState, type Ref } from 'react';
import { useTranslation } from 'react-i18next';
import { formatLatLng, toDisplay, toStored, type LatLng, type TileCrs } from './coords';
import { createOfflineLayer, type OfflineLayer } from './offline-layer';
import { circleFromMap, displayShape, polygonFromMap, shapeBounds, type GeoShape } from './shapes';
import type { GeoMapHandle, GeoMapProps, MapFence } from './types';
import './geo-map.css';

/** China as a whole, where a map with nothing on it opens. */
const CHINA_BOUNDS = L.latLngBounds([18, 73], [53.5, 135]);
/** Tiles that have not drawn one tile by then count as unreachable. */
const TILE_TIMEOUT_MS = 8000;

type BaseMode = 'tiles' | 'offline' | 'fallback';

const sameShape = (a: GeoShape | null | undefined, b: GeoShape | null | undefined) =>
  JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

/** A round marker drawn as inline SVG (no image files: the console loads nothing from elsewhere). */
function dotIcon(color: string, ring: string, size = 16) {
  const r = size / 2;
  return L.divIcon({
    className: 'geo-map-dot',
    iconSize: [size, size],
    iconAnchor: [r, r],
    html:
      `<svg width="${size}" height="${size}" viewBox="0 0 ${size} ${size}" aria-hidden="true">` +
      `<circle cx="${r}" cy="${r}" r="${r - 1.5}" fill="${escapeHtml(color)}" stroke="${escapeHtml(ring)}" stroke-width="2.5"/>` +
      '</svg>',
  });
}

function fenceLayer(fence: MapFence, crs: TileCrs, renderer: L.Renderer): L.Path {
  const shown = displayShape(fence.shape, crs);
  const style: L.PathOptions = {
    renderer,
    color: fence.color,
    weight: fence.selected ? 3.5 : 2,
    fillColor: fence.color,
    fillOpacity: fence.selected ? 0.22 : 0.1,
    dashArray: fence.dimmed ? '6 6' : undefined,
  };
  const options = { ...style, pmIgnore: true } as L.PathOptions;
  return shown.kind === 'circle'
    ? L.circle([shown.center.lat, shown.center.lng], { ...options, radius: shown.radiusM })
    : L.polygon(
        shown.points.map((p) => [p.lat, p.lng] as [number, number]),
        options,
      );
}

/** Takes the edited shape off the map, out of Geoman's edit mode first. */
function removeEdited(layer: L.Circle | L.Polygon | null) {
  if (!layer) return;
  if (layer.pm?.enabled()) layer.pm.disable();
  layer.remove();
}

/**
 * A Leaflet map with a base layer (the operator's tiles, or the offline map the console ships when there are none
 * or they cannot be reached), fences, device markers, a track, and at most one shape to draw or edit with
 * Leaflet-Geoman. Everything given and returned is WGS-84; on GCJ-02 tiles it is converted both ways.
 */
export default function GeoMap({
  tileUrl,
  tileCrs = 'wgs84',
  tileAttribution,
  tileSubdomains,
  fences = [],
  markers = [],
  track,
  editShape,
  onShapeChange,
  onFenceClick,
  onMarkerClick,
  height = 420,
  fitKey,
  ref,
  testId = 'geo-map',
}: GeoMapProps & { ref?: Ref<GeoMapHandle> }) {
  const { t, i18n } = useTranslation();
  const { token } = theme.useToken();
  const container = useRef<HTMLDivElement>(null);
  const mapRef = useRef<L.Map | null>(null);
  const rendererRef = useRef<L.Renderer | null>(null);
  /** The edited shape is drawn in SVG: Geoman's editing needs the shape's own element. */
  const svgRef = useRef<L.Renderer | null>(null);
  const offlineRef = useRef<OfflineLayer | null>(null);
  const overlaysRef = useRef<L.LayerGroup | null>(null);
  const editLayerRef = useRef<L.Circle | L.Polygon | null>(null);
  const lastEmitted = useRef<GeoShape | null | undefined>(undefined);
  const editCrs = useRef<TileCrs | null>(null);
  const onShapeChangeRef = useRef(onShapeChange);
  onShapeChangeRef.current = onShapeChange;
  const clickRefs = useRef({ onFenceClick, onMarkerClick });
  clickRefs.current = { onFenceClick, onMarkerClick };
  const [mode, setMode] = useState<BaseMode>(tileUrl ? 'tiles' : 'offline');
  const [cursor, setCursor] = useState<LatLng | null>(null);
  const [drawing, setDrawing] = useState<'circle' | 'polygon' | null>(null);
  const crs: TileCrs = mode === 'tiles' ? tileCrs : 'wgs84';
  const crsRef = useRef(crs);
  crsRef.current = crs;

  const dark = token.colorBgBase !== '#fff' && token.colorBgBase !== '#ffffff';
  const colors = useMemo(
    () => ({
      sea: dark ? '#10161f' : '#dfe9f3',
      land: dark ? '#1f2631' : '#f7f5ef',
      border: dark ? '#5d6b80' : '#9aa7b6',
      cityBorder: dark ? '#3d4757' : '#c7cfd9',
    }),
    [dark],
  );

  // the map itself: made once
  useEffect(() => {
    const el = container.current;
    if (!el) return;
    const renderer = L.canvas({ padding: 0.5 });
    const map = L.map(el, {
      preferCanvas: true,
      renderer,
      minZoom: 3,
      maxZoom: 19,
      worldCopyJump: true,
      attributionControl: true,
    });
    map.attributionControl.setPrefix(false);
    map.fitBounds(CHINA_BOUNDS);
    L.control.scale({ metric: true, imperial: false, position: 'bottomright' }).addTo(map);
    const overlays = L.layerGroup().addTo(map);
    map.on('mousemove', (e: L.LeafletMouseEvent) => setCursor(toStored(e.latlng, crsRef.current)));
    map.on('mouseout', () => setCursor(null));
    map.on('pm:drawstart', (e: { shape: string }) => setDrawing(e.shape === 'Circle' ? 'circle' : 'polygon'));
    map.on('pm:drawend', () => setDrawing(null));
    mapRef.current = map;
    rendererRef.current = renderer;
    svgRef.current = L.svg();
    overlaysRef.current = overlays;
    // the container may get its size after the first paint (a card, a tab, a drawer)
    const resize = new ResizeObserver(() => map.invalidateSize());
    resize.observe(el);
    return () => {
      resize.disconnect();
      removeEdited(editLayerRef.current);
      map.remove();
      mapRef.current = null;
      offlineRef.current = null;
      editLayerRef.current = null;
    };
  }, []);

  useEffect(() => {
    mapRef.current?.pm.setLang(i18n.language.startsWith('en') ? 'en' : 'zh');
  }, [i18n.language]);

  // a new tile URL is tried again
  useEffect(() => setMode(tileUrl ? 'tiles' : 'offline'), [tileUrl]);

  // base layer
  useEffect(() => {
    const map = mapRef.current;
    if (!map) return;
    if (mode === 'tiles' && tileUrl) {
      let loaded = false;
      const tiles = L.tileLayer(tileUrl, {
        maxZoom: 19,
        attribution: tileAttribution ? escapeHtml(tileAttribution) : undefined,
        ...(tileSubdomains?.length ? { subdomains: tileSubdomains } : {}),
        pmIgnore: true,
      } as L.TileLayerOptions);
      const fallBack = () => !loaded && setMode('fallback');
      tiles.on('tileload', () => (loaded = true));
      tiles.on('tileerror', fallBack);
      const timer = window.setTimeout(fallBack, TILE_TIMEOUT_MS);
      tiles.addTo(map);
      return () => {
        window.clearTimeout(timer);
        tiles.remove();
      };
    }
    const offline = (offlineRef.current ??= createOfflineLayer(rendererRef.current!, colors));
    offline.layer.addTo(map);
    offline.layer.eachLayer((l) => (l as L.GeoJSON).bringToBack?.());
    const update = () => offline.update(map);
    map.on('moveend zoomend', update);
    void offline.ready.then(update);
    return () => {
      map.off('moveend zoomend', update);
      offline.layer.remove();
    };
    // colors are applied by the effect below without rebuilding the layer
    // eslint-disable-next-line react-hooks/exhaustive-deps -- see above
  }, [mode, tileUrl, tileAttribution, tileSubdomains?.join()]);

  useEffect(() => offlineRef.current?.setColors(colors), [colors]);

  // fences, markers and the track: redrawn whenever they change (tens to hundreds of paths)
  useEffect(() => {
    const overlays = overlaysRef.current;
    const renderer = rendererRef.current;
    if (!overlays || !renderer) return;
    overlays.clearLayers();
    for (const fence of fences) {
      const layer = fenceLayer(fence, crs, renderer);
      if (fence.label) layer.bindTooltip(escapeHtml(fence.label), { sticky: true });
      layer.on('click', () => clickRefs.current.onFenceClick?.(fence.id));
      overlays.addLayer(layer);
    }
    if (track && track.length > 1) {
      overlays.addLayer(
        L.polyline(
          track.map((p) => {
            const d = toDisplay(p, crs);
            return [d.lat, d.lng] as [number, number];
          }),
          { renderer, color: token.colorPrimary, weight: 3, opacity: 0.85, pmIgnore: true } as L.PolylineOptions,
        ),
      );
    }
    for (const marker of markers) {
      const d = toDisplay(marker.position, crs);
      const m = L.marker([d.lat, d.lng], {
        icon: dotIcon(marker.color, token.colorBgContainer, marker.size ?? 16),
        keyboard: false,
        pmIgnore: true,
        zIndexOffset: marker.size && marker.size > 16 ? 500 : 0,
      } as L.MarkerOptions);
      if (marker.label) m.bindTooltip(escapeHtml(marker.label), { direction: 'top', offset: [0, -8] });
      m.on('click', () => clickRefs.current.onMarkerClick?.(marker.id));
      overlays.addLayer(m);
    }
  }, [fences, markers, track, crs, token.colorPrimary, token.colorBgContainer]);

  // the shape being edited
  useEffect(() => {
    const map = mapRef.current;
    const renderer = rendererRef.current;
    if (!map || !renderer) return;
    // the shape the map itself just reported comes back through the caller: keep the layer being edited
    if (editLayerRef.current && editCrs.current === crs && sameShape(editShape, lastEmitted.current)) return;
    removeEdited(editLayerRef.current);
    editLayerRef.current = null;
    lastEmitted.current = editShape;
    editCrs.current = crs;
    if (!editShape) return;
    const layer = fenceLayer(
      { id: 0, shape: editShape, color: token.colorPrimary, selected: true },
      crs,
      svgRef.current!,
    ) as L.Circle | L.Polygon;
    (layer.options as { pmIgnore?: boolean }).pmIgnore = false;
    L.PM.reInitLayer(layer);
    layer.addTo(map);
    adopt(layer);
  }, [editShape, crs, token.colorPrimary]);

  /** Makes a layer the editable shape: its edits are reported as stored shapes. */
  function adopt(layer: L.Circle | L.Polygon) {
    editLayerRef.current = layer;
    layer.pm.enable({ allowSelfIntersection: true, snappable: false });
    const report = () => {
      const shape =
        layer instanceof L.Circle
          ? circleFromMap(layer.getLatLng(), layer.getRadius(), crsRef.current)
          : polygonFromMap(layer.getLatLngs() as L.LatLng[][], crsRef.current);
      lastEmitted.current = shape;
      onShapeChangeRef.current?.(shape);
    };
    layer.on('pm:edit', report);
    return report;
  }

  // a shape drawn with Geoman becomes the edited shape
  useEffect(() => {
    const map = mapRef.current;
    if (!map) return;
    const created = (e: { layer: L.Layer; shape: string }) => {
      map.pm.disableDraw();
      removeEdited(editLayerRef.current);
      const layer = e.layer as L.Circle | L.Polygon;
      editCrs.current = crsRef.current;
      layer.setStyle({ color: token.colorPrimary, fillColor: token.colorPrimary, fillOpacity: 0.22, weight: 3.5 });
      adopt(layer)();
    };
    map.on('pm:create', created);
    return () => {
      map.off('pm:create', created);
    };
  }, [token.colorPrimary]);

  // fit the view to what is on the map when the caller says the content is new
  useEffect(() => {
    const map = mapRef.current;
    if (!map || fitKey === undefined) return;
    const boxes: L.LatLngBounds[] = [];
    const add = (sw: LatLng, ne: LatLng) => {
      const a = toDisplay(sw, crs);
      const b = toDisplay(ne, crs);
      boxes.push(L.latLngBounds([a.lat, a.lng], [b.lat, b.lng]));
    };
    for (const f of fences) add(...shapeBounds(f.shape));
    if (editShape) add(...shapeBounds(editShape));
    for (const m of markers) add(m.position, m.position);
    for (const p of track ?? []) add(p, p);
    if (!boxes.length) return;
    const all = boxes.reduce(
      (acc, b) => acc.extend(b),
      L.latLngBounds(boxes[0].getSouthWest(), boxes[0].getNorthEast()),
    );
    map.fitBounds(all, { padding: [32, 32], maxZoom: 16 });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a new fitKey moves the view
  }, [fitKey]);

  useImperativeHandle(
    ref,
    () => ({
      startDraw(kind) {
        const map = mapRef.current;
        if (!map) return;
        map.pm.disableDraw();
        map.pm.enableDraw(kind === 'circle' ? 'Circle' : 'Polygon', {
          snappable: false,
          allowSelfIntersection: true,
          continueDrawing: false,
          templineStyle: { color: token.colorPrimary },
          hintlineStyle: { color: token.colorPrimary, dashArray: [5, 5] },
          pathOptions: {
            color: token.colorPrimary,
            fillColor: token.colorPrimary,
            renderer: svgRef.current ?? undefined,
          },
        } as L.PM.DrawModeOptions);
      },
      cancelDraw() {
        mapRef.current?.pm.disableDraw();
      },
      clear() {
        mapRef.current?.pm.disableDraw();
        removeEdited(editLayerRef.current);
        editLayerRef.current = null;
        lastEmitted.current = null;
        onShapeChangeRef.current?.(null);
      },
      panTo(p) {
        const d = toDisplay(p, crsRef.current);
        mapRef.current?.setView([d.lat, d.lng], Math.max(mapRef.current.getZoom(), 14));
      },
    }),
    [token.colorPrimary],
  );

  return (
    <div className="geo-map" style={{ height, background: mode === 'tiles' ? token.colorBgContainer : colors.sea }}>
      <div ref={container} className="geo-map-canvas" data-testid={testId} data-base={mode} data-crs={crs} />
      <div className="geo-map-badges">
        {mode === 'offline' && <Tag color="default">{t('geoMap.offline')}</Tag>}
        {mode === 'fallback' && (
          <Tag color="warning" data-testid="geo-map-fallback">
            {t('geoMap.fallback')}
          </Tag>
        )}
        {mode === 'tiles' && crs === 'gcj02' && <Tag color="default">GCJ-02</Tag>}
      </div>
      {(cursor || drawing) && (
        <div className="geo-map-cursor" data-testid="geo-map-cursor">
          {drawing && <span>{t(drawing === 'circle' ? 'geoMap.drawingCircle' : 'geoMap.drawingPolygon')}</span>}
          {cursor && <span>{formatLatLng(cursor)}</span>}
        </div>
      )}
    </div>
  );
}
