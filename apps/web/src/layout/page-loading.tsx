import { Flex, Spin } from 'antd';
import { useTranslation } from 'react-i18next';

/** Shown while a page's code or the session is loading. */
export function PageLoading({ fullscreen = false }: { fullscreen?: boolean }) {
  const { t } = useTranslation();
  return (
    <Flex align="center" justify="center" style={{ minHeight: fullscreen ? '100vh' : 240 }}>
      <Spin size="large" description={t('app.loading')} />
    </Flex>
  );
}
