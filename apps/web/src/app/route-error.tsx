import { CloseCircleFilled } from '@ant-design/icons';
import { Button, Flex, theme } from 'antd';
import NProgress from 'nprogress';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { logError } from '../lib/error-log';

/**
 * Last line of defence for a page that threw while loading or rendering: log it, offer a reload. Drawn
 * without antd's Result and Typography, which would otherwise weigh on every first load.
 */
export function RouteError() {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const error = useRouteError();
  useEffect(() => {
    logError(isRouteErrorResponse(error) ? new Error(`${error.status} ${error.statusText}`) : error);
    // the failed navigation never went idle in the root route, which would have ended the bar
    NProgress.done();
  }, [error]);
  const chunk = error instanceof Error && error.name === 'ChunkLoadError';

  return (
    <Flex vertical align="center" justify="center" gap={8} role="alert" style={{ minHeight: '100vh', padding: 24, textAlign: 'center' }}>
      <CloseCircleFilled style={{ fontSize: 64, color: token.colorError, marginBottom: 16 }} />
      <h3 style={{ margin: 0, color: token.colorTextHeading, fontSize: token.fontSizeHeading3, fontWeight: token.fontWeightStrong }}>
        {t('app.crash.title')}
      </h3>
      <span style={{ color: token.colorTextDescription }}>{t(chunk ? 'app.crash.chunk' : 'app.crash.subTitle')}</span>
      <Button type="primary" onClick={() => window.location.reload()} style={{ marginTop: 16 }}>
        {t('app.crash.reload')}
      </Button>
    </Flex>
  );
}
