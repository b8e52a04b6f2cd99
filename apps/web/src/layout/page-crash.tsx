import { CloseCircleFilled } from '@ant-design/icons';
import { Button, Flex, theme } from 'antd';
import { useTranslation } from 'react-i18next';

/**
 * What a page that threw shows instead of itself: the error is logged, the user can try again. Drawn without
 * antd's Result and Typography, which would otherwise weigh on every first load (the route's error element
 * uses it too).
 */
export function PageCrash({
  error,
  onRetry,
  fullScreen = false,
}: {
  error: unknown;
  onRetry?: () => void;
  fullScreen?: boolean;
}) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const chunk = error instanceof Error && error.name === 'ChunkLoadError';
  return (
    <Flex
      vertical
      align="center"
      justify="center"
      gap={8}
      role="alert"
      style={{ minHeight: fullScreen ? '100vh' : 320, padding: 24, textAlign: 'center' }}
    >
      <CloseCircleFilled style={{ fontSize: 64, color: token.colorError, marginBottom: 16 }} />
      <h3
        style={{
          margin: 0,
          color: token.colorTextHeading,
          fontSize: token.fontSizeHeading3,
          fontWeight: token.fontWeightStrong,
        }}
      >
        {t('app.crash.title')}
      </h3>
      <span style={{ color: token.colorTextDescription }}>{t(chunk ? 'app.crash.chunk' : 'app.crash.subTitle')}</span>
      <Flex gap={8} style={{ marginTop: 16 }}>
        {/* a page whose code did not arrive needs the whole console loaded again */}
        {onRetry && !chunk && <Button onClick={onRetry}>{t('app.crash.retry')}</Button>}
        <Button type="primary" onClick={() => window.location.reload()}>
          {t('app.crash.reload')}
        </Button>
      </Flex>
    </Flex>
  );
}
