import { DEVICE_SORTS, DEVICE_STATUSES, PAPER_STATES, type DeviceSort } from '@cpc/contracts/device-constants';
import type { DeviceListQuery, DeviceStatus, PaperState } from '@cpc/contracts/device';

export const PAGE_SIZES = [10, 20, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 20;
/** The server's keyword limit (contracts: `keywordField`). */
export const KEYWORD_MAX = 50;

/** What the fleet list shows, as it lives in the page's query string (a link or a refresh keeps it). */
export interface DeviceFilters {
  pageNo: number;
  pageSize: number;
  status?: DeviceStatus;
  /** A group and its subgroups; 0 = devices in no group. */
  groupId?: number;
  modelId?: number;
  /** A department and every department below it (issue 12). */
  departmentId?: number;
  keyword?: string;
  paper?: PaperState;
  sort?: DeviceSort;
  order?: 'asc' | 'desc';
}

const oneOf = <T extends string>(values: readonly T[], v: string | null): T | undefined =>
  v !== null && (values as readonly string[]).includes(v) ? (v as T) : undefined;

function wholeNumber(v: string | null, min: number): number | undefined {
  if (v === null || !/^\d{1,9}$/.test(v)) return undefined;
  const n = Number(v);
  return n >= min ? n : undefined;
}

/** The filters a query string asks for; anything unreadable is left out rather than sent to the server. */
export function filtersFromSearch(search: URLSearchParams | string): DeviceFilters {
  const q = typeof search === 'string' ? new URLSearchParams(search) : search;
  const size = wholeNumber(q.get('pageSize'), 1);
  const sort = oneOf(DEVICE_SORTS, q.get('sort'));
  const keyword = q.get('keyword')?.trim().slice(0, KEYWORD_MAX);
  return {
    pageNo: wholeNumber(q.get('pageNo'), 1) ?? 1,
    pageSize: size && (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_PAGE_SIZE,
    status: oneOf(DEVICE_STATUSES, q.get('status')),
    groupId: wholeNumber(q.get('groupId'), 0),
    modelId: wholeNumber(q.get('modelId'), 1),
    departmentId: wholeNumber(q.get('departmentId'), 1),
    keyword: keyword || undefined,
    paper: oneOf(PAPER_STATES, q.get('paper')),
    sort,
    order: sort ? (q.get('order') === 'desc' ? 'desc' : 'asc') : undefined,
  };
}

/** The query string of some filters: defaults left out, in a fixed order so equal filters give equal strings. */
export function filtersToSearch(f: DeviceFilters): URLSearchParams {
  const q = new URLSearchParams();
  if (f.status) q.set('status', f.status);
  if (f.groupId !== undefined) q.set('groupId', String(f.groupId));
  if (f.modelId !== undefined) q.set('modelId', String(f.modelId));
  if (f.departmentId !== undefined) q.set('departmentId', String(f.departmentId));
  if (f.paper) q.set('paper', f.paper);
  if (f.keyword?.trim()) q.set('keyword', f.keyword.trim());
  if (f.sort) {
    q.set('sort', f.sort);
    q.set('order', f.order === 'desc' ? 'desc' : 'asc');
  }
  if (f.pageNo > 1) q.set('pageNo', String(f.pageNo));
  if (f.pageSize !== DEFAULT_PAGE_SIZE) q.set('pageSize', String(f.pageSize));
  return q;
}

/** A change of filters starts again at page 1; paging keeps the filters. */
export function changeFilters(
  f: DeviceFilters,
  change: Partial<Omit<DeviceFilters, 'pageNo' | 'pageSize'>>,
): DeviceFilters {
  return { ...f, ...change, pageNo: 1 };
}

/** The `GET /device/list` query of some filters. */
export function listQueryOf(f: DeviceFilters): DeviceListQuery {
  const q: DeviceListQuery = { pageNo: f.pageNo, pageSize: f.pageSize };
  if (f.status) q.status = f.status;
  if (f.groupId !== undefined) q.groupId = f.groupId;
  if (f.modelId !== undefined) q.modelId = f.modelId;
  if (f.departmentId !== undefined) q.departmentId = f.departmentId;
  if (f.keyword) q.keyword = f.keyword;
  if (f.paper) q.paper = f.paper;
  if (f.sort) {
    q.sort = f.sort;
    q.order = f.order ?? 'asc';
  }
  return q;
}

/** How many filters narrow the list (the group of the tree not counted), for the "clear" button. */
export const activeFilterCount = (f: DeviceFilters): number =>
  [f.status, f.modelId, f.departmentId, f.keyword, f.paper].filter((v) => v !== undefined && v !== '').length;
