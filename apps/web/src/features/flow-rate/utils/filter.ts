import { SIM_STATES } from '@cpc/contracts/device-constants';
import type { SimSort } from '@cpc/contracts/flow-rate';
import type { SimState } from '@cpc/contracts/device';

export const SIM_SORT_KEYS: SimSort[] = ['remaining', 'usedMonth', 'expiry'];
export const CARRIERS = ['cmcc', 'cucc', 'ctcc'] as const;
export const PAGE_SIZES = [10, 20, 50, 100];

/** The traffic query's filter, sort and page, as the page's URL carries them (`?state=low,exhausted`). */
export interface SimFilter {
  state?: SimState[];
  carrier?: string;
  groupId?: number;
  expiringDays?: number;
  belowPercent?: number;
  keyword?: string;
  sort?: SimSort;
  order?: 'asc' | 'desc';
  pageNo?: number;
  pageSize?: number;
}

const int = (v: string | null, min: number, max: number): number | undefined => {
  if (v === null || !/^\d+$/.test(v)) return undefined;
  const n = Number(v);
  return n >= min && n <= max ? n : undefined;
};

/** The filter of a URL query; values the server would refuse are dropped, so a hand-edited link still opens. */
export function filterFromSearch(search: URLSearchParams): SimFilter {
  const states = (search.get('state') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s): s is SimState => (SIM_STATES as readonly string[]).includes(s));
  const sort = search.get('sort');
  const order = search.get('order');
  const below = search.get('belowPercent');
  const belowN = below !== null && below !== '' && Number.isFinite(Number(below)) ? Number(below) : undefined;
  const keyword = search.get('keyword')?.trim().slice(0, 50);
  const carrier = search.get('carrier')?.trim().slice(0, 32);
  const f: SimFilter = {
    state: states.length ? [...new Set(states)] : undefined,
    carrier: carrier || undefined,
    groupId: int(search.get('groupId'), 1, Number.MAX_SAFE_INTEGER),
    expiringDays: int(search.get('expiringDays'), 1, 366),
    belowPercent: belowN !== undefined && belowN >= 0 && belowN <= 100 ? belowN : undefined,
    keyword: keyword || undefined,
    sort: SIM_SORT_KEYS.includes(sort as SimSort) ? (sort as SimSort) : undefined,
    order: order === 'asc' || order === 'desc' ? order : undefined,
    pageNo: int(search.get('pageNo'), 1, 1_000_000),
    pageSize: PAGE_SIZES.includes(Number(search.get('pageSize'))) ? Number(search.get('pageSize')) : undefined,
  };
  return Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as SimFilter;
}

/** The filter as query parameters (the URL's and the server's): only what is set, states comma-separated. */
export function filterParams(f: SimFilter): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(f)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) {
      if (v.length) out[k] = v.join(',');
    } else out[k] = String(v);
  }
  return out;
}

/** The filter without paging or sorting: what the export and the "filtered" state look at. */
export const withoutPaging = ({ pageNo, pageSize, ...rest }: SimFilter): SimFilter => {
  void pageNo;
  void pageSize;
  return rest;
};

/** Bytes as MB with at most 2 decimals, or GB from 1024 MB. */
export function formatMbValue(mb: number): string {
  const v = Math.max(0, mb);
  if (v >= 1024) return `${Math.round((v / 1024) * 100) / 100} GB`;
  return `${Math.round(v * 100) / 100} MB`;
}

export const MB = 1024 * 1024;

/** A chart's series in MB (2 decimals): up and down per point. */
export function usageSeries(points: Array<{ date: string; txBytes: number; rxBytes: number }>) {
  const mb = (b: number) => Math.round((b / MB) * 100) / 100;
  return {
    dates: points.map((p) => p.date),
    tx: points.map((p) => mb(p.txBytes)),
    rx: points.map((p) => mb(p.rxBytes)),
    totalMb: mb(points.reduce((s, p) => s + p.txBytes + p.rxBytes, 0)),
  };
}

/** The tag colour of a SIM state. */
export const stateColor = (s: SimState): string =>
  s === 'active' ? 'success' : s === 'low' ? 'warning' : s === 'suspended' ? 'default' : 'error';

/** The progress bar's status for the share left. */
export const leftStatus = (s: SimState): 'success' | 'normal' | 'exception' =>
  s === 'active' ? 'normal' : s === 'low' ? 'normal' : 'exception';
