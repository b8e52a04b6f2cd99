import NProgress from 'nprogress';
import { useMemo } from 'react';
import { REFRESH_PROGRESS_DONE } from '../../config/settings';
import { useLayoutSettings } from '../layout-settings';
import { useStableNavigate } from '../use-stable-navigate';
import { useTabs, type CloseAction, type VisitedTab } from './tabs-store';

/** Mounts the page of `key` (the page on screen by default) anew, with the progress bar of SPEC §9. */
export function refreshPage(key: string | null = useTabs.getState().activeKey): void {
  if (!key) return;
  useTabs.getState().refresh(key);
  if (!useLayoutSettings.getState().showProgressBar) return;
  NProgress.start();
  setTimeout(() => NProgress.done(), REFRESH_PROGRESS_DONE);
}

/** What the tab bar, its menus and the header can do to tabs, navigation included. */
export function useTabActions() {
  const navigate = useStableNavigate();
  return useMemo(
    () => ({
      open: (tab: VisitedTab) => navigate(tab.fullPath),
      close: (action: CloseAction, key?: string) => {
        const next = useTabs.getState().close(action, key);
        if (next) navigate(next);
      },
      refresh: refreshPage,
    }),
    [navigate],
  );
}
