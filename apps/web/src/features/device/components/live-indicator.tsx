import { Badge, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { useLiveStatus } from '@/lib/live-events';

/** Whether the page is receiving live device states right now. */
export function LiveIndicator() {
  const { t } = useTranslation();
  const status = useLiveStatus();
  const badge =
    status === 'open'
      ? 'success'
      : status === 'retrying'
        ? 'warning'
        : status === 'connecting'
          ? 'processing'
          : 'default';
  return (
    <Tooltip title={t('device.live.tip')}>
      <span data-testid="live-status" data-live={status}>
        <Badge status={badge} text={t(`device.live.${status}`)} />
      </span>
    </Tooltip>
  );
}
