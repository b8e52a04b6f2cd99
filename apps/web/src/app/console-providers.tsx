import { QueryClientProvider } from '@tanstack/react-query';
import { ConfigProvider } from 'antd';
import { useMemo, type ReactNode } from 'react';
import { themeConfig } from '../config/antd-theme';
import { MESSAGE_DURATION } from '../config/settings';
import { useLanguage } from '../lib/i18n';
import { antdLocale } from '../lib/locale-sync';
import { useLayoutSettings } from '../layout/layout-settings';
import { AppFeedback } from './app-feedback';
import { queryClient } from './query-client';

/**
 * antd's theme and locale, its message/modal/notification holders and the server-state cache: everything
 * the console's screens share, except the sign-in page, which carries none of it on the first load.
 */
export function ConsoleProviders({ children }: { children: ReactNode }) {
  const { language } = useLanguage();
  const themeName = useLayoutSettings((s) => s.themeName);
  const colorScheme = useLayoutSettings((s) => s.colorScheme);
  const theme = useMemo(() => themeConfig(themeName, colorScheme), [themeName, colorScheme]);

  return (
    <ConfigProvider locale={antdLocale(language)} theme={theme}>
      <AppFeedback message={{ duration: MESSAGE_DURATION / 1000, maxCount: 3 }}>
        <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
      </AppFeedback>
    </ConfigProvider>
  );
}
