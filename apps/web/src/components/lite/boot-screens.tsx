import CloseCircleFilled from '@ant-design/icons-svg/es/asn/CloseCircleFilled';
import { useTranslation } from 'react-i18next';
import { LiteIcon } from './icon';

/** Whole-screen loading before anything else is there (the session, the first page's code). */
export function BootLoading() {
  const { t } = useTranslation();
  return (
    <div className="lite lite-screen" role="status">
      <span className="lite-spin lite-spin-lg" aria-hidden />
      <span className="lite-screen-secondary">{t('app.loading')}</span>
    </div>
  );
}

/**
 * What shows when the console itself failed (the guard, the shell, a download): drawn without antd, so it
 * shows even when antd's own code is what did not arrive.
 */
export function BootCrash({ error }: { error: unknown }) {
  const { t } = useTranslation();
  const chunk = error instanceof Error && error.name === 'ChunkLoadError';
  return (
    <div className="lite lite-screen" role="alert">
      <span style={{ fontSize: 64, color: 'var(--lite-error)', marginBottom: 16 }}>
        <LiteIcon icon={CloseCircleFilled} />
      </span>
      <h3>{t('app.crash.title')}</h3>
      <span className="lite-screen-secondary">{t(chunk ? 'app.crash.chunk' : 'app.crash.subTitle')}</span>
      <button type="button" className="lite-btn lite-btn-primary" onClick={() => window.location.reload()}>
        {t('app.crash.reload')}
      </button>
    </div>
  );
}
