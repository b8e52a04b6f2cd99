import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { LiveDeviceEvent, LiveFenceEvent } from '@cpc/contracts';
import { useLiveEvents } from '@/lib/live-events';
import { fenceKeys } from '../api/fence';

/** Read again at most this often while events pour in (a fleet reports positions all the time). */
export const LIVE_REFRESH_MS = 1000;

/** Where a device said it is, and whether it is online, since its row was read (no position: none in the event). */
export type LivePosition = { lat: number | null; lng: number | null; online: boolean };

/**
 * Fences, their counts, devices and events are read again on `fence` events (a fence changed, a device entered
 * or left one), at most once a second; `onFence` hears each of them first.
 */
export function useFenceLive(handlers: { onFence?: (e: LiveFenceEvent) => void }): void {
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
  });
}

/**
 * The positions and presence the watched devices reported since their rows were read, for the markers on top of
 * that read: a device whose first fix comes after it appears, and the others follow. Events of devices not
 * watched when they come are ignored (a fleet reports all the time). `forget` drops what was heard (the rows are
 * about to be read afresh).
 */
export function useLivePositions(
  watched: ReadonlySet<number>,
): [reported: Readonly<Record<number, LivePosition>>, forget: () => void] {
  const [reported, setReported] = useState<Record<number, LivePosition>>({});
  const now = useRef(watched);
  now.current = watched;
  useLiveEvents({
    device: (e: LiveDeviceEvent) => {
      if (!now.current.has(e.id)) return;
      setReported((prev) => ({ ...prev, [e.id]: { lat: e.lat, lng: e.lng, online: e.status === 'online' } }));
    },
  });
  const forget = useCallback(() => setReported({}), []);
  return [reported, forget];
}
