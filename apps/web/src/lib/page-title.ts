import { useEffect } from 'react';
import { useLocation } from 'react-router';
import { create } from 'zustand';
import { onSessionReset } from './session';

interface PageTitles {
  /** By the page's path and query (`/device/detail?id=3`): what object that page shows. */
  titles: Record<string, string>;
  set(key: string, title: string | undefined): void;
}

/** Names of the objects open pages show, for their tabs ("设备详情 · Printer-01" rather than three "设备详情"). */
export const usePageTitles = create<PageTitles>()((set) => ({
  titles: {},
  set: (key, title) =>
    set((s) => {
      if (s.titles[key] === title) return s;
      const titles = { ...s.titles };
      if (title) titles[key] = title;
      else delete titles[key];
      return { titles };
    }),
}));

onSessionReset(() => usePageTitles.setState({ titles: {} }));

/** Names the object this page shows (a device's name); its tab shows it beside the page's title. */
export function usePageTitle(title: string | undefined): void {
  const { pathname, search } = useLocation();
  const key = pathname + search;
  useEffect(() => usePageTitles.getState().set(key, title?.trim() || undefined), [key, title]);
}
