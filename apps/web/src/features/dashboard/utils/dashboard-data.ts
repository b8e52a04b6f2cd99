import dayjs from 'dayjs';
import type { DashboardOverview, GroupRank, RankedDevice, Trend, TrendUnit } from '@cpc/contracts/dashboard';
import type { ProvinceCount } from '@cpc/contracts/device';
import { formatSize } from '@/lib/format/size';

/**
 * The dashboard's data shaped for its widgets. Pure functions: the charts draw what these return, the tests
 * check them without a canvas.
 */

/** A customer who has not bound a device yet sees one invitation instead of empty charts. */
export const isEmptyFleet = (o: DashboardOverview): boolean => o.cards.devices === 0;

/** Share of the fleet online, whole percent; 0 for no devices. */
export const onlineRate = (cards: { devices: number; online: number }): number =>
  cards.devices > 0 ? Math.round((cards.online / cards.devices) * 100) : 0;

/** MB as people read it: "0 MB", "512.5 MB", "1.5 GB" (SPEC §9's units, base 1024). */
export function formatMb(mb: number): string {
  if (!Number.isFinite(mb) || mb <= 0) return '0 MB';
  return formatSize(mb * 1024 * 1024);
}

/** A bucket's start in the browser's zone (the server counted in the same zone). */
export const trendLabel = (at: string, unit: TrendUnit): string =>
  dayjs(at).format(unit === 'hour' ? 'MM-DD HH:00' : 'MM-DD');

export interface TrendSeries {
  labels: string[];
  online: number[];
  tasks: number[];
  /** No device was online and no task was sent in the whole window. */
  empty: boolean;
}

export function trendSeries(trend: Trend): TrendSeries {
  const points = trend.points;
  return {
    labels: points.map((p) => trendLabel(p.at, trend.unit)),
    online: points.map((p) => p.online),
    tasks: points.map((p) => p.tasks),
    empty: points.every((p) => p.online === 0 && p.tasks === 0),
  };
}

export interface InstallSeries {
  labels: string[];
  counts: number[];
  total: number;
  empty: boolean;
}

/** Binds per day; the dates are already the user's local days ('YYYY-MM-DD'). */
export function installSeries(installs: DashboardOverview['installs']): InstallSeries {
  const total = installs.reduce((s, d) => s + d.count, 0);
  return {
    labels: installs.map((d) => d.date.slice(5)),
    counts: installs.map((d) => d.count),
    total,
    empty: total === 0,
  };
}

export interface VersionSlice {
  /** The firmware as reported; '' = not reported yet, OTHER_VERSIONS = the rest folded together. */
  firmware: string;
  count: number;
  online: number;
}

export const OTHER_VERSIONS = '\u0000other';
/** More slices than this and the donut turns unreadable: the smallest are folded into one. */
export const MAX_VERSION_SLICES = 8;

export function versionSlices(versions: DashboardOverview['versions']): VersionSlice[] {
  const sorted = [...versions]
    .filter((v) => v.count > 0)
    .sort(
      (a, b) =>
        b.count - a.count ||
        Number(a.firmware === '') - Number(b.firmware === '') ||
        a.firmware.localeCompare(b.firmware, 'en', { numeric: true }),
    );
  if (sorted.length <= MAX_VERSION_SLICES) return sorted;
  const kept = sorted.slice(0, MAX_VERSION_SLICES - 1);
  const rest = sorted.slice(MAX_VERSION_SLICES - 1);
  return [
    ...kept,
    {
      firmware: OTHER_VERSIONS,
      count: rest.reduce((s, v) => s + v.count, 0),
      online: rest.reduce((s, v) => s + v.online, 0),
    },
  ];
}

export interface ProvinceMapData {
  data: Array<{ name: string; value: number; online: number }>;
  /** Upper end of the colour scale (at least 1, so an empty map is drawn in the lowest colour). */
  max: number;
  /** Devices with a known province. */
  located: number;
}

export function provinceMapData(provinces: ProvinceCount[]): ProvinceMapData {
  const data = provinces
    .filter((p) => p.total > 0)
    .map((p) => ({ name: p.province, value: p.total, online: p.online }));
  return { data, max: Math.max(1, ...data.map((d) => d.value)), located: data.reduce((s, d) => s + d.value, 0) };
}

export interface RankRow<T> {
  item: T;
  /** Bar length: share of the largest value, 0-100. */
  percent: number;
}

/** Rankings drawn as bars relative to the leader. */
export function rankRows<T>(items: T[], value: (item: T) => number): Array<RankRow<T>> {
  const max = Math.max(0, ...items.map(value));
  return items.map((item) => ({ item, percent: max > 0 ? Math.round((value(item) / max) * 100) : 0 }));
}

export const deviceLabel = (d: Pick<RankedDevice, 'name' | 'sn'>): string => d.name.trim() || d.sn;

/** A group's online share, whole percent. */
export const groupOnlinePercent = (g: GroupRank): number =>
  g.devices > 0 ? Math.round((g.online / g.devices) * 100) : 0;

export type RemindKind = 'paper' | 'offline' | 'simLow';
export const REMIND_KINDS: RemindKind[] = ['paper', 'offline', 'simLow'];

/**
 * Where each remind item leads: the device list filtered to what it counts. Paper problems open the list on
 * the commonest problem among them (the list filters one paper state at a time); the list has no SIM filter,
 * so SIM low opens it sorted by data left, the lowest first.
 */
export function remindLink(kind: RemindKind, remind?: DashboardOverview['remind']): string {
  if (kind === 'offline') return '/device/index?status=offline';
  if (kind === 'simLow') return '/flowRate/flowRateSearch?state=low,exhausted';
  const counts = new Map<string, number>();
  for (const d of remind?.paper.devices ?? [])
    if (d.paper !== 'ok') counts.set(d.paper, (counts.get(d.paper) ?? 0) + 1);
  const commonest =
    [...counts].sort((a, b) => b[1] - a[1] || Number(b[0] === 'out') - Number(a[0] === 'out'))[0]?.[0] ?? 'out';
  return `/device/index?paper=${commonest}`;
}

/** A device's own page (one tab per device). */
export const deviceDetailPath = (id: number): string => `/device/detail?id=${id}`;

/** Chart tooltips are HTML; a firmware string comes from the device itself. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
