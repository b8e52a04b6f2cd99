import { QueryClientProvider } from '@tanstack/react-query';
import { ConfigProvider } from 'antd';
import { useEffect, useMemo, type ReactNode } from 'react';
import { MESSAGE_DURATION } from '../config/settings';
import { shellColors, themeConfig } from '../config/theme';
import { useLanguage } from '../lib/i18n';
import { useLayoutSettings } from '../layout/layout-settings';
import { AppFeedback } from './app-feedback';
import { queryClient } from './query-client';

export function AppProviders({ children }: { children: ReactNode }) {
  const { antdLocale } = useLanguage();
  const themeName = useLayoutSettings((s) => s.themeName);
  const colorScheme = useLayoutSettings((s) => s.colorScheme);
  const theme = useMemo(() => themeConfig(themeName, colorScheme), [themeName, colorScheme]);

  // what lives outside antd's tree (the page background, scroll bars, the progress bar) follows too
  useEffect(() => {
    const root = document.documentElement;
    root.dataset.colorScheme = colorScheme;
    root.style.setProperty('--cpc-primary', shellColors(themeName, colorScheme).primary);
  }, [themeName, colorScheme]);

  return (
    <ConfigProvider locale={antdLocale} theme={theme}>
      <AppFeedback message={{ duration: MESSAGE_DURATION / 1000, maxCount: 3 }}>
        <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
      </AppFeedback>
    </ConfigProvider>
  );
}
