import { BgColorsOutlined, SettingOutlined } from '@ant-design/icons';
import { Button, Tooltip } from 'antd';
import { Suspense, lazy, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { create } from 'zustand';

/**
 * What opens the theme drawer, apart from the drawer itself: the drawer (its form, thumbnails and colour
 * pickers) is a chunk of its own, fetched when the pointer or the focus reaches a button that opens it, so the
 * first signed-in page does not wait for what it does not draw.
 */
/** One drawer for the header button and the side tab. */
export const useThemeDrawer = create<{ open: boolean; setOpen(open: boolean): void }>()((set) => ({
  open: false,
  setOpen: (open) => set({ open }),
}));

const loadDrawer = () => import('./theme-drawer');
const ThemeDrawer = lazy(loadDrawer);
const prefetchDrawer = () => void loadDrawer();

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
        onPointerEnter={prefetchDrawer}
        onFocus={prefetchDrawer}
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
      onPointerEnter={prefetchDrawer}
      onFocus={prefetchDrawer}
      aria-label={t('layout.drawer.open')}
      data-testid="theme-setting-tab"
    >
      <SettingOutlined />
    </button>
  );
}

/** Where the drawer is drawn: nothing until it is first opened. */
export function ThemeDrawerHost() {
  const open = useThemeDrawer((s) => s.open);
  const [wanted, setWanted] = useState(open);
  if (open && !wanted) setWanted(true);
  return wanted ? (
    <Suspense fallback={null}>
      <ThemeDrawer />
    </Suspense>
  ) : null;
}
