import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import { DEFAULT_LAYOUT, DEFAULT_THEME, LAYOUT_SETTINGS_KEY, type LayoutName, type ThemeName } from '../config/settings';

export const BACKGROUNDS = ['none', 'vab-background'] as const;
export type Background = (typeof BACKGROUNDS)[number];
export const COLUMN_STYLES = ['vertical', 'horizontal', 'card', 'arrow'] as const;
export type ColumnStyle = (typeof COLUMN_STYLES)[number];
export const TABS_BAR_STYLES = ['card', 'smart', 'smooth'] as const;
export type TabsBarStyle = (typeof TABS_BAR_STYLES)[number];
export const COLOR_SCHEMES = ['light', 'dark'] as const;
export type ColorScheme = (typeof COLOR_SCHEMES)[number];

/** The settings entity of SPEC §3 (language lives with i18n under its own key). */
export interface Settings {
  layout: LayoutName;
  themeName: ThemeName;
  /** Light or dark page surfaces; the theme name picks the colours (beyond the SPEC: a dark mode). */
  colorScheme: ColorScheme;
  background: Background;
  columnStyle: ColumnStyle;
  fixedHeader: boolean;
  showProgressBar: boolean;
  showTabs: boolean;
  tabsBarStyle: TabsBarStyle;
  showTabsIcon: boolean;
  showLanguage: boolean;
  showRefresh: boolean;
  showSearch: boolean;
  showTheme: boolean;
  showNotice: boolean;
  showFullScreen: boolean;
  showThemeSetting: boolean;
  showPageTransition: boolean;
  collapse: boolean;
  lock: boolean;
}

export const DEFAULT_SETTINGS: Settings = {
  layout: DEFAULT_LAYOUT,
  themeName: DEFAULT_THEME,
  colorScheme: 'light',
  background: 'none',
  columnStyle: 'card',
  fixedHeader: true,
  showProgressBar: true,
  showTabs: true,
  tabsBarStyle: 'smart',
  showTabsIcon: true,
  showLanguage: true,
  showRefresh: true,
  showSearch: true,
  showTheme: true,
  showNotice: true,
  showFullScreen: true,
  showThemeSetting: true,
  showPageTransition: true,
  collapse: false,
  lock: false,
};

interface LayoutSettings extends Settings {
  /** Changes settings live (the theme drawer's preview); `save` is what persists them. */
  update(patch: Partial<Settings>): void;
  setCollapse(collapse: boolean): void;
  toggleCollapse(): void;
  setLock(lock: boolean): void;
}

const SETTING_KEYS = Object.keys(DEFAULT_SETTINGS) as (keyof Settings)[];

export const pickSettings = (s: Settings): Settings =>
  Object.fromEntries(SETTING_KEYS.map((k) => [k, s[k]])) as unknown as Settings;

export const useLayoutSettings = create<LayoutSettings>()(
  persist<LayoutSettings, [], [], Settings>(
    (set) => ({
      ...DEFAULT_SETTINGS,
      update: (patch) => set(patch),
      setCollapse: (collapse) => set({ collapse }),
      toggleCollapse: () => set((s) => ({ collapse: !s.collapse })),
      setLock: (lock) => set({ lock }),
    }),
    {
      name: LAYOUT_SETTINGS_KEY,
      version: 1,
      storage: createJSONStorage(() => localStorage),
      partialize: (s): Settings => pickSettings(s),
      // settings saved by an older release keep what they had and gain the new fields' defaults
      merge: (persisted, current) => ({ ...current, ...(persisted as Partial<Settings>) }),
    },
  ),
);
