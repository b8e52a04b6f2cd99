import { useEffect, useRef } from 'react';
import type { OrderState } from '@cpc/contracts/order';

/** The tag colour of each order state. */
export const STATE_COLOR: Record<OrderState, string> = {
  pending: 'gold',
  paid: 'blue',
  fulfilled: 'green',
  canceled: 'default',
  closed: 'default',
  refunded: 'purple',
};

/** A new client request id: one per purchase the user starts, so a double click or a retry makes one order. */
export const newRequestId = (): string =>
  typeof crypto.randomUUID === 'function'
    ? crypto.randomUUID()
    : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;

/** The ICCIDs of `?iccids=a,b,c` (the traffic query's selection), digits only, no repeats. */
export function iccidsFromSearch(search: URLSearchParams): string[] {
  const raw = search.get('iccids') ?? '';
  return [
    ...new Set(
      raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => /^\d{19,20}$/.test(s)),
    ),
  ];
}

/**
 * Calls `onLeave` when the address leaves `path` (another tab, a link): a kept page stays mounted behind the
 * one on screen, and its drawer or modal, drawn over the whole window, must not stay open over that page.
 */
export function useCloseOnLeave(path: string, open: boolean, onLeave: () => void): void {
  const latest = useRef(onLeave);
  latest.current = onLeave;
  useEffect(() => {
    if (!open) return;
    const check = () => {
      if (!window.location.hash.startsWith(`#${path}`)) latest.current();
    };
    window.addEventListener('hashchange', check);
    window.addEventListener('popstate', check);
    return () => {
      window.removeEventListener('hashchange', check);
      window.removeEventListener('popstate', check);
    };
  }, [path, open]);
}
