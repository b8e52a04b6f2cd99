import type { FenceAlertOn, FenceEventKind, FenceSchedule, FenceShape, FenceSide } from '@cpc/contracts';

/** The rows and filters of FenceRepository's statements. */

export interface FenceRow {
  id: number;
  tenant_id: number;
  name: string;
  shape: FenceShape;
  min_lng: number;
  min_lat: number;
  max_lng: number;
  max_lat: number;
  schedule: FenceSchedule;
  alert_on: FenceAlertOn;
  dwell_s: number;
  enabled: boolean;
  version: number;
  created_at: Date;
  updated_at: Date;
}

/** How many target devices of a fence (in the reader's data scope) are inside, outside. */
export interface FenceCountRow {
  fence_id: number;
  devices: number;
  inside: number;
  outside: number;
}

/** A target device of a fence with its last position and its state in the fence. */
export interface FenceDeviceStateRow {
  id: number;
  sn: string;
  name: string;
  status: string;
  lat: number | null;
  lng: number | null;
  located_at: Date | null;
  side: 'inside' | 'outside' | null;
  since: Date | null;
  pending_side: 'inside' | 'outside' | null;
  pending_since: Date | null;
  total: number;
}

/** The columns a new fence is stored with (shape and schedule as JSON text). */
export interface FenceValues {
  name: string;
  shape: string;
  min_lng: number;
  min_lat: number;
  max_lng: number;
  max_lat: number;
  schedule: string;
  alert_on: FenceAlertOn;
  dwell_s: number;
  enabled: boolean;
  created_by: number;
}

/** The columns an edit changes (the others are left as they are). */
export type FenceChanges = Partial<Omit<FenceValues, 'created_by'>>;

/** The filter of the devices page of a fence. */
export interface FenceDevicesFilter {
  id: number;
  pageNo: number;
  pageSize: number;
  side?: FenceSide;
  keyword?: string;
}

/** The filter of the fence events page. */
export interface FenceEventsFilter {
  pageNo: number;
  pageSize: number;
  fenceId?: number;
  deviceId?: number;
  kind?: FenceEventKind;
  from?: string;
  to?: string;
}
