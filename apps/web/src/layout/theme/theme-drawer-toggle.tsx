import { BgColorsOutlined, SettingOutlined } from '@ant-design/icons';
import { Button, Tooltip } from 'antd';
import { Suspense, lazy, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { create } from 'zustand';

/**
 * What opens the theme drawer, apart from the drawer itself: the drawer (its form, thumbnails and colour
 * pickers) is a chunk of its own, fetched when the browser is idle after the console has drawn, or on the first
 * click, so the first signed-in page does not wait for what it does not draw.
 */
/** One drawer for the header button and the side tab. */
export const useThemeDrawer = create<{ open: boolean; setOpen(open: boolean): void }>()((set) => ({
  open: false,
  setOpen: (open) => set({ open }),
}));

/** Header tool that opens the theme drawer (SPEC §2, behind `showTheme`). */
export function ThemeDrawerButton() {
  const { t } = useTranslation();
  const setOpen = useThemeDrawer((s) => s.setOpen);
  return (
    <Tooltip title={t('layout.drawer.open')}>
      <Button
        type="text"
        icon={<BgColorsOutlined />}
        onClick={() => setOpen(true)}
        aria-label={t('layout.drawer.open')}
        data-testid="theme-drawer-button"
      />
    </Tooltip>
  );
}

/** A tab on the right edge of the window that opens the drawer too (behind `showThemeSetting`). */
export function ThemeSettingTab() {
  const { t } = useTranslation();
  const setOpen = useThemeDrawer((s) => s.setOpen);
  return (
    <button
      type="button"
      className="cpc-theme-tab"
      onClick={() => setOpen(true)}
      aria-label={t('layout.drawer.open')}
      data-testid="theme-setting-tab"
    >
      <SettingOutlined />
    </button>
  );
}

const ThemeDrawer = lazy(() => import('./theme-drawer'));
const loadDrawer = () => import('./theme-drawer');

/** Where the drawer is drawn: nothing until it is first opened; its code is fetched ahead on idle. */
export function ThemeDrawerHost() {
  const open = useThemeDrawer((s) => s.open);
  const [wanted, setWanted] = useState(open);
  if (open && !wanted) setWanted(true);
  useEffect(() => {
    const idle = window.requestIdleCallback ?? ((run: () => void) => window.setTimeout(run, 2000));
    const handle = idle(() => void loadDrawer());
    return () => (window.cancelIdleCallback ?? window.clearTimeout)(handle);
  }, []);
  return wanted ? (
    <Suspense fallback={null}>
      <ThemeDrawer />
    </Suspense>
  ) : null;
}
