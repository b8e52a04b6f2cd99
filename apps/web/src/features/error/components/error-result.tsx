import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';

interface ErrorResultProps {
  status: '403' | '404';
  kind: 'forbidden' | 'notFound';
}

/** A full-height antd Result with a way back home, used by both the public and the in-layout error pages. */
export function ErrorResult({ status, kind }: ErrorResultProps) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <Result
      status={status}
      title={t(`error.${kind}.title`)}
      subTitle={t(`error.${kind}.subTitle`)}
      style={{ paddingBlock: 'clamp(32px, 10vh, 96px)' }}
      extra={
        <Button type="primary" onClick={() => navigate('/')}>
          {t('common.backHome')}
        </Button>
      }
    />
  );
}
