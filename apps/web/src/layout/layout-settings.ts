import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import {
  DEFAULT_LAYOUT,
  DEFAULT_THEME,
  LAYOUTS,
  LAYOUT_SETTINGS_KEY,
  THEMES,
  type LayoutName,
  type ThemeName,
} from '../config/settings';

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
  /** What Save stored last; closing the theme drawer without saving returns to it. */
  saved: Settings;
  /** Changes settings live (the theme drawer's preview); `save` is what persists them. */
  update(patch: Partial<Settings>): void;
  save(): void;
  /** Drops the unsaved changes. */
  revert(): void;
  /** Back to the defaults, stored at once (collapse and lock stay as they are). */
  restoreDefaults(): void;
  setCollapse(collapse: boolean): void;
  toggleCollapse(): void;
  setLock(lock: boolean): void;
}

const SETTING_KEYS = Object.keys(DEFAULT_SETTINGS) as (keyof Settings)[];

export const pickSettings = (s: Settings): Settings =>
  Object.fromEntries(SETTING_KEYS.map((k) => [k, s[k]])) as unknown as Settings;

const CHOICES: Partial<Record<keyof Settings, readonly string[]>> = {
  layout: LAYOUTS,
  themeName: THEMES,
  colorScheme: COLOR_SCHEMES,
  background: BACKGROUNDS,
  columnStyle: COLUMN_STYLES,
  tabsBarStyle: TABS_BAR_STYLES,
};

/** Stored settings as far as they are valid; anything unknown or of the wrong kind takes its default. */
export function sanitizeSettings(stored: unknown): Settings {
  const out = { ...DEFAULT_SETTINGS } as Record<keyof Settings, unknown>;
  if (typeof stored !== 'object' || stored === null) return out as Settings;
  const record = stored as Record<string, unknown>;
  for (const key of SETTING_KEYS) {
    const value = record[key];
    const choices = CHOICES[key];
    const valid = choices ? choices.includes(value as string) : typeof value === typeof DEFAULT_SETTINGS[key];
    if (valid) out[key] = value;
  }
  return out as Settings;
}

/** Collapse and lock are stored the moment they change (SPEC §4); the rest waits for Save. */
const stored = (s: LayoutSettings): Settings => ({ ...s.saved, collapse: s.collapse, lock: s.lock });

export const useLayoutSettings = create<LayoutSettings>()(
  persist<LayoutSettings, [], [], Settings>(
    (set) => ({
      ...DEFAULT_SETTINGS,
      saved: DEFAULT_SETTINGS,
      update: (patch) => set(patch),
      save: () => set((s) => ({ saved: pickSettings(s) })),
      revert: () => set((s) => ({ ...s.saved, collapse: s.collapse, lock: s.lock })),
      restoreDefaults: () =>
        set((s) => {
          const defaults = { ...DEFAULT_SETTINGS, collapse: s.collapse, lock: s.lock };
          return { ...defaults, saved: defaults };
        }),
      setCollapse: (collapse) => set((s) => ({ collapse, saved: { ...s.saved, collapse } })),
      toggleCollapse: () => set((s) => ({ collapse: !s.collapse, saved: { ...s.saved, collapse: !s.collapse } })),
      setLock: (lock) => set((s) => ({ lock, saved: { ...s.saved, lock } })),
    }),
    {
      name: LAYOUT_SETTINGS_KEY,
      version: 1,
      storage: createJSONStorage(() => localStorage),
      partialize: stored,
      // settings saved by an older release keep what they had and gain the new fields' defaults
      merge: (persisted, current) => {
        const settings = sanitizeSettings(persisted);
        return { ...current, ...settings, saved: settings };
      },
    },
  ),
);

/**
 * The screen lock holds in every tab of the console at once: locking one tab locks the others, unlocking (with
 * the password) opens them all. Only the lock follows another tab; the look stays this tab's until it saves.
 */
export function followLockOfOtherTabs(target: Window = window): () => void {
  const onStorage = (e: StorageEvent) => {
    if (e.key !== LAYOUT_SETTINGS_KEY || e.newValue === null) return;
    let lock: unknown;
    try {
      lock = (JSON.parse(e.newValue) as { state?: { lock?: unknown } }).state?.lock;
    } catch {
      return;
    }
    if (typeof lock === 'boolean' && lock !== useLayoutSettings.getState().lock)
      useLayoutSettings.setState((st) => ({ lock, saved: { ...st.saved, lock } }));
  };
  target.addEventListener('storage', onStorage);
  return () => target.removeEventListener('storage', onStorage);
}

if (typeof window !== 'undefined') followLockOfOtherTabs();
