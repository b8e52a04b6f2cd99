import { LockOutlined } from '@ant-design/icons';
import { Button, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { useLayoutSettings } from '../layout-settings';

/** Locks the screen (SPEC §2, §4); the lock screen takes over until the user's password is given. */
export function LockButton() {
  const { t } = useTranslation();
  const setLock = useLayoutSettings((s) => s.setLock);
  return (
    <Tooltip title={t('layout.header.lock.button')}>
      <Button
        type="text"
        icon={<LockOutlined />}
        onClick={() => setLock(true)}
        aria-label={t('layout.header.lock.button')}
        data-testid="lock-button"
      />
    </Tooltip>
  );
}
