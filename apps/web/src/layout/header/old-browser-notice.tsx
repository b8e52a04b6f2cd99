import { Alert } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { readStorage, writeStorage } from '../../lib/storage';
import { missingFeatures } from './old-browser';

/** Dismissed for this browser session: the next visit reminds the user again. */
const DISMISSED_KEY = 'old-browser-dismissed';

/** A banner asking users of an out-of-date browser to switch (SPEC §2). */
export function OldBrowserNotice() {
  const { t } = useTranslation();
  const [missing] = useState(missingFeatures);
  const [dismissed, setDismissed] = useState(() => readStorage('sessionStorage', DISMISSED_KEY) === '1');

  if (!missing.length || dismissed) return null;
  return (
    <Alert
      banner
      type="warning"
      showIcon
      title={t('layout.header.oldBrowser.title')}
      description={t('layout.header.oldBrowser.description', { features: missing.join(', ') })}
      closable={{
        onClose: () => {
          writeStorage('sessionStorage', DISMISSED_KEY, '1');
          setDismissed(true);
        },
      }}
      id="old-browser-notice"
      // pinned to the bottom edge wherever the layout renders it: seen on every page, covering no tool
      style={{ position: 'fixed', insetInline: 0, bottom: 0, zIndex: 1001 }}
    />
  );
}
