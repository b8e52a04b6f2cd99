import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useLiveEvents } from '@/lib/live-events';
import { pushKeys } from '../api/push';

/** Read again at most this often while events pour in (the server already sends one per push per half second). */
export const LIVE_REFRESH_MS = 1000;

/** Pushes, their counts and deliveries read again on `push` events, at most once a second (the first at once). */
export function usePushLive(): void {
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
      void client.invalidateQueries({ queryKey: pushKeys.all });
    }, wait);
  };
  useLiveEvents({ push: stale });
}
