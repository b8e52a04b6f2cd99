import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ReleaseState, UpgradeDeviceState } from '@cpc/contracts/upgrade';
import { RELEASE_STATE_COLOR } from '../utils/release';

export function ReleaseStateTag({ state }: { state: ReleaseState }) {
  const { t } = useTranslation();
  return (
    <Tag color={RELEASE_STATE_COLOR[state]} data-testid="release-state">
      {t(`upgrade.state.${state}`)}
    </Tag>
  );
}

const DEVICE_COLOR: Record<UpgradeDeviceState, string> = {
  queued: 'default',
  downloading: 'processing',
  downloaded: 'processing',
  installing: 'processing',
  rebooting: 'processing',
  verified: 'success',
  failed: 'error',
  canceled: 'default',
  skipped: 'default',
};

export function DeviceStateTag({ state }: { state: UpgradeDeviceState }) {
  const { t } = useTranslation();
  return <Tag color={DEVICE_COLOR[state]}>{t(`upgrade.deviceState.${state}`)}</Tag>;
}
