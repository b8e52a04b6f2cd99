import { Button, Result } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { logError } from '../lib/error-log';

/** Last line of defence for a page that threw while loading or rendering: log it, offer a reload. */
export function RouteError() {
  const { t } = useTranslation();
  const error = useRouteError();
  useEffect(() => {
    logError(isRouteErrorResponse(error) ? new Error(`${error.status} ${error.statusText}`) : error);
  }, [error]);
  const chunk = error instanceof Error && error.name === 'ChunkLoadError';

  return (
    <Result
      status="500"
      title={t('app.crash.title')}
      subTitle={t(chunk ? 'app.crash.chunk' : 'app.crash.subTitle')}
      extra={
        <Button type="primary" onClick={() => window.location.reload()}>
          {t('app.crash.reload')}
        </Button>
      }
    />
  );
}
