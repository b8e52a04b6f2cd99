import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import { DEFAULT_LAYOUT, DEFAULT_THEME, LAYOUT_SETTINGS_KEY, type LayoutName, type ThemeName } from '../config/settings';

/**
 * The shell's own settings (SPEC §3 "Settings"), remembered in local storage. Only the vertical layout
 * and the blue-black theme exist so far; the theme drawer will edit the rest of this store.
 */
interface LayoutSettings {
  layout: LayoutName;
  themeName: ThemeName;
  collapse: boolean;
  setCollapse(collapse: boolean): void;
  toggleCollapse(): void;
}

export const useLayoutSettings = create<LayoutSettings>()(
  persist(
    (set) => ({
      layout: DEFAULT_LAYOUT,
      themeName: DEFAULT_THEME,
      collapse: false,
      setCollapse: (collapse) => set({ collapse }),
      toggleCollapse: () => set((s) => ({ collapse: !s.collapse })),
    }),
    {
      name: LAYOUT_SETTINGS_KEY,
      storage: createJSONStorage(() => localStorage),
      partialize: ({ layout, themeName, collapse }) => ({ layout, themeName, collapse }),
    },
  ),
);
