import { useQuery, useQueryClient } from '@tanstack/react-query';
import { filterRoutes, type LiveSource } from '@cpc/contracts/route';
import { useCallback } from 'react';
import { useLiveEvents } from './live-events';
import { normalizeRoutes } from './menu-routes';
import { NOTICE_POLL_INTERVAL } from './notice-api';
import { get } from './request';
import { accessOf, useSession } from './session';
import { fetchMenu } from './session-api';

/** The live numbers of the menu's badges and dots, by source (`GET /menu/liveCounts`). */
export type LiveCounts = Partial<Record<LiveSource['source'], number>>;

/** Under the messages' query key: marking messages read (the bell) refreshes the menu's counts too. */
const LIVE_COUNTS_KEY = ['message', 'liveCounts'] as const;

/** The numbers live badges and dots show (`GET /menu/liveCounts`); asked only when `enabled`. */
export function useLiveCounts(enabled: boolean): LiveCounts {
  const { data } = useQuery({
    queryKey: LIVE_COUNTS_KEY,
    queryFn: () => get<LiveCounts>('/menu/liveCounts', undefined, { silent: true }),
    refetchInterval: NOTICE_POLL_INTERVAL,
    enabled,
  });
  return data ?? NO_COUNTS;
}
const NO_COUNTS: LiveCounts = {};

/** Reads the user's menu again (staff changed it) and puts it in place; a failure keeps the menu shown. */
export async function reloadMenu(): Promise<void> {
  const routes = normalizeRoutes(await fetchMenu());
  const session = useSession.getState();
  if (!session.userInfo) return;
  session.setRoutes(filterRoutes(routes, accessOf(session.userInfo)));
}

/**
 * While signed in: a `menu` event (staff changed the menu) reloads it at once, and a `message` event (a message
 * came or was read elsewhere) counts the unread messages again, for the bell and for any menu badge of them.
 */
export function useMenuLiveUpdates(): void {
  const client = useQueryClient();
  const recount = useCallback(() => void client.invalidateQueries({ queryKey: ['message'] }), [client]);
  useLiveEvents({
    menu: () => void reloadMenu().catch(() => undefined),
    message: recount,
    onGap: () => {
      recount();
      void reloadMenu().catch(() => undefined);
    },
  });
}
