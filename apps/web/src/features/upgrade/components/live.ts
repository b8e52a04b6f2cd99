import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useLiveEvents } from '@/lib/live-events';
import { PACKAGE_QUERY_ROOT } from '@/lib/packages';
import { upgradeKeys } from '../api/upgrade';

/** Read again at most this often while events pour in (a roll-out sends one per device step). */
export const LIVE_REFRESH_MS = 1000;

/**
 * Releases, their counts and devices read again on `upgrade` events and `task` events of upgrades, at most once
 * a second (the first event at once, the rest gathered).
 */
export function useUpgradeLive(): void {
  const client = useQueryClient();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const last = useRef(0);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  const stale = () => {
    if (timer.current) return;
    const wait = Math.max(0, last.current + LIVE_REFRESH_MS - Date.now());
    timer.current = setTimeout(() => {
      timer.current = null;
      last.current = Date.now();
      void client.invalidateQueries({ queryKey: upgradeKeys.all });
    }, wait);
  };
  useLiveEvents({
    upgrade: stale,
    // the firmware lists are package queries
    package: () => void client.invalidateQueries({ queryKey: PACKAGE_QUERY_ROOT }),
    task: (e) => {
      if (e.type === 'upgrade') stale();
    },
  });
}
