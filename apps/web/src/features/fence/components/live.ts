import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { LiveDeviceEvent, LiveFenceEvent } from '@cpc/contracts';
import { useLiveEvents } from '@/lib/live-events';
import { fenceKeys } from '../api/fence';

/** Read again at most this often while events pour in (a fleet reports positions all the time). */
export const LIVE_REFRESH_MS = 1000;

/**
 * Fences, their counts, devices and events are read again on `fence` events (a fence changed, a device entered
 * or left one), at most once a second; `device` events (presence, position) go to `onDevice` for the markers.
 */
export function useFenceLive(handlers: {
  onFence?: (e: LiveFenceEvent) => void;
  onDevice?: (e: LiveDeviceEvent) => void;
}): void {
  const client = useQueryClient();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const last = useRef(0);
  const own = useRef(handlers);
  own.current = handlers;
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
      void client.invalidateQueries({ queryKey: fenceKeys.all, predicate: (q) => q.queryKey[1] !== 'map' });
    }, wait);
  };
  useLiveEvents({
    fence: (e) => {
      own.current.onFence?.(e);
      stale();
    },
    device: (e) => own.current.onDevice?.(e),
  });
}
