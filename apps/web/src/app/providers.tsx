import { QueryClientProvider } from '@tanstack/react-query';
import { App as AntdApp, ConfigProvider } from 'antd';
import { useEffect, useMemo, type ReactNode } from 'react';
import { MESSAGE_DURATION } from '../config/settings';
import { themeConfig } from '../config/theme';
import { setMessageApi } from '../lib/feedback';
import { useLanguage } from '../lib/i18n';
import { useLayoutSettings } from '../layout/layout-settings';
import { queryClient } from './query-client';

/** Hands antd's context-aware message API to code outside React (the request layer). */
function MessageBridge() {
  const { message } = AntdApp.useApp();
  useEffect(() => {
    setMessageApi(message);
    return () => setMessageApi(null);
  }, [message]);
  return null;
}

export function AppProviders({ children }: { children: ReactNode }) {
  const { antdLocale } = useLanguage();
  const themeName = useLayoutSettings((s) => s.themeName);
  const theme = useMemo(() => themeConfig(themeName), [themeName]);

  return (
    <ConfigProvider locale={antdLocale} theme={theme}>
      <AntdApp message={{ duration: MESSAGE_DURATION / 1000, maxCount: 3 }}>
        <MessageBridge />
        <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
      </AntdApp>
    </ConfigProvider>
  );
}
