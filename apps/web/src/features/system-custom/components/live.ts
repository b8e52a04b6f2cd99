import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useLiveEvents } from '@/lib/live-events';
import { SYSTEM_CUSTOM_KEY } from '../api/system-custom';

/** Read again at most this often while a fleet reports (each device's apply sends its own events). */
export const LIVE_REFRESH_MS = 1000;

/**
 * Profiles, their targets and the per-device states read again on `systemCustom` events and on `task` events of
 * configuration tasks, at most once a second (the first event at once, the rest gathered), and after the stream
 * comes back (what happened while it was down).
 */
export function useSystemCustomLive(): void {
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
      void client.invalidateQueries({ queryKey: SYSTEM_CUSTOM_KEY });
    }, wait);
  };
  useLiveEvents({
    systemCustom: stale,
    task: (e) => {
      if (e.type === 'apply_profile') stale();
    },
    onGap: stale,
  });
}
