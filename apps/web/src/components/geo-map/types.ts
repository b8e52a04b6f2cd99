import type { LatLng, TileCrs } from './coords';
import type { GeoShape } from './shapes';

export interface MapFence {
  id: number;
  shape: GeoShape;
  /** Outline and fill colour (the fence's alert rule, say). */
  color: string;
  label?: string;
  selected?: boolean;
  /** Drawn dashed (a disabled fence). */
  dimmed?: boolean;
}

export interface MapMarker {
  id: number;
  position: LatLng;
  color: string;
  label?: string;
  /** Diameter in pixels (16 by default). */
  size?: number;
}

export interface GeoMapProps {
  /** The operator's tile URL template (`GET /fence/map`); without one the offline base map is drawn. */
  tileUrl?: string | null;
  /** The datum of those tiles: 'gcj02' for AutoNavi/Amap and Tencent tiles. */
  tileCrs?: TileCrs;
  tileAttribution?: string | null;
  /** Values of `{s}` in the tile URL. */
  tileSubdomains?: string[];
  fences?: MapFence[];
  markers?: MapMarker[];
  /** A polyline through these points (a device's track), oldest first. */
  track?: LatLng[];
  /** The shape drawn or edited on the map (controlled); `onShapeChange` reports every change. */
  editShape?: GeoShape | null;
  onShapeChange?(shape: GeoShape | null): void;
  onFenceClick?(id: number): void;
  onMarkerClick?(id: number): void;
  height?: number | string;
  /** Each new value fits the view to what is on the map. */
  fitKey?: string | number;
  testId?: string;
}

export interface GeoMapHandle {
  /** Starts drawing a new shape; it replaces the edited one when finished. */
  startDraw(kind: 'circle' | 'polygon'): void;
  cancelDraw(): void;
  /** Removes the edited shape (reported as null). */
  clear(): void;
  panTo(p: LatLng): void;
}
