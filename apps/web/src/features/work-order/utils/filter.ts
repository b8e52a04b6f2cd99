import {
  WORK_ORDER_PRIORITIES,
  WORK_ORDER_STATES,
  WORK_ORDER_TYPES,
  type WorkOrderPriority,
  type WorkOrderState,
  type WorkOrderType,
} from '@cpc/contracts/work-order';

export const PAGE_SIZES = [10, 20, 50, 100];
export const DEFAULT_PAGE_SIZE = 20;

/** The list's filter and page as the page's URL carries them (`?state=submitted,processing&overdue=true`). */
export interface WorkOrderFilter {
  state?: WorkOrderState[];
  type?: WorkOrderType;
  priority?: WorkOrderPriority;
  /** ISO times of the creation range. */
  from?: string;
  to?: string;
  keyword?: string;
  unread?: boolean;
  // staff only
  tenantId?: number;
  /** A staff member's id, `none` or `me`. */
  assignee?: string;
  overdue?: boolean;
  pageNo?: number;
  pageSize?: number;
}

const int = (v: string | null, min: number, max: number): number | undefined => {
  if (v === null || !/^\d{1,15}$/.test(v)) return undefined;
  const n = Number(v);
  return n >= min && n <= max ? n : undefined;
};
const oneOf = <T extends string>(list: readonly T[], v: string | null): T | undefined =>
  list.includes(v as T) ? (v as T) : undefined;
const isoTime = (v: string | null): string | undefined =>
  v && /^\d{4}-\d\d-\d\dT/.test(v) && !Number.isNaN(Date.parse(v)) ? v : undefined;

/** The filter of a URL query; values the server would refuse are dropped, so a hand-edited link still opens. */
export function filterFromSearch(search: URLSearchParams): WorkOrderFilter {
  const states = (search.get('state') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s): s is WorkOrderState => (WORK_ORDER_STATES as readonly string[]).includes(s));
  const keyword = search.get('keyword')?.trim().slice(0, 50);
  const assignee = search.get('assignee');
  const f: WorkOrderFilter = {
    state: states.length ? [...new Set(states)] : undefined,
    type: oneOf(WORK_ORDER_TYPES, search.get('type')),
    priority: oneOf(WORK_ORDER_PRIORITIES, search.get('priority')),
    from: isoTime(search.get('from')),
    to: isoTime(search.get('to')),
    keyword: keyword || undefined,
    unread: search.get('unread') === 'true' || undefined,
    tenantId: int(search.get('tenantId'), 1, Number.MAX_SAFE_INTEGER),
    assignee: assignee && /^(none|me|\d{1,15})$/.test(assignee) ? assignee : undefined,
    overdue: search.get('overdue') === 'true' || undefined,
    pageNo: int(search.get('pageNo'), 1, 1_000_000),
    pageSize: PAGE_SIZES.includes(Number(search.get('pageSize'))) ? Number(search.get('pageSize')) : undefined,
  };
  return Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as WorkOrderFilter;
}

/** The filter as query parameters (the URL's and the server's): only what is set, states comma-separated. */
export function filterParams(f: WorkOrderFilter): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(f)) {
    if (v === undefined || v === null || v === '' || v === false) continue;
    if (Array.isArray(v)) {
      if (v.length) out[k] = v.join(',');
    } else out[k] = String(v);
  }
  return out;
}

/** The tag colour of a state. */
export const stateColor = (s: WorkOrderState): string =>
  ({
    submitted: 'blue',
    processing: 'processing',
    waiting: 'warning',
    resolved: 'success',
    closed: 'default',
    withdrawn: 'default',
  })[s];

/** The tag colour of a priority. */
export const priorityColor = (p: WorkOrderPriority): string =>
  ({ low: 'default', normal: 'blue', high: 'orange', urgent: 'red' })[p];
