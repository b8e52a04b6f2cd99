import { useEffect, type ReactNode } from 'react';
import { shellColors } from '../config/theme';
import { useLayoutSettings } from '../layout/layout-settings';

/**
 * What every screen shares from the first load on: the colour scheme and primary colour as CSS variables on
 * the document, which the sign-in page paints with and what lives outside antd's tree (the page background,
 * scroll bars, the progress bar) follows. antd's providers come with the other screens (`ConsoleProviders`).
 */
export function AppProviders({ children }: { children: ReactNode }) {
  const themeName = useLayoutSettings((s) => s.themeName);
  const colorScheme = useLayoutSettings((s) => s.colorScheme);

  useEffect(() => {
    const root = document.documentElement;
    root.dataset.colorScheme = colorScheme;
    root.style.setProperty('--cpc-primary', shellColors(themeName, colorScheme).primary);
  }, [themeName, colorScheme]);

  return children;
}
