import CloseOutlined from '@ant-design/icons-svg/es/asn/CloseOutlined';
import WarningFilled from '@ant-design/icons-svg/es/asn/WarningFilled';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LiteIcon } from '../../components/lite/icon';
import { readStorage, writeStorage } from '../../lib/storage';
import { missingFeatures } from './old-browser';
import './old-browser-notice.css';

/** Dismissed for this browser session: the next visit reminds the user again. */
const DISMISSED_KEY = 'old-browser-dismissed';

/**
 * A banner asking users of an out-of-date browser to switch (SPEC §2), on every screen from the sign-in page
 * on, so it is drawn without antd (the first load carries none). A browser too old to run the console at all
 * gets the message from index.html instead.
 */
export function OldBrowserNotice() {
  const { t } = useTranslation();
  const [missing] = useState(missingFeatures);
  const [dismissed, setDismissed] = useState(() => readStorage('sessionStorage', DISMISSED_KEY) === '1');

  if (!missing.length || dismissed) return null;
  return (
    <div className="lite old-browser-notice" id="old-browser-notice" role="alert">
      <span className="old-browser-notice-icon">
        <LiteIcon icon={WarningFilled} />
      </span>
      <div className="old-browser-notice-text">
        <div className="old-browser-notice-title">{t('app.oldBrowser.title')}</div>
        <div>{t('app.oldBrowser.description', { features: missing.join(', ') })}</div>
      </div>
      <button
        type="button"
        className="old-browser-notice-close"
        aria-label={t('app.oldBrowser.close')}
        onClick={() => {
          writeStorage('sessionStorage', DISMISSED_KEY, '1');
          setDismissed(true);
        }}
      >
        <LiteIcon icon={CloseOutlined} />
      </button>
    </div>
  );
}
