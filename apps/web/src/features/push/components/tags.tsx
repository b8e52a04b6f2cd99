import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { DeliveryState, PushState } from '@cpc/contracts/push';
import { DELIVERY_STATE_COLOR, PUSH_STATE_COLOR } from '../utils/progress';

export function PushStateTag({ state }: { state: PushState }) {
  const { t } = useTranslation();
  return (
    <Tag color={PUSH_STATE_COLOR[state]} data-testid="push-state">
      {t(`push.state.${state}`)}
    </Tag>
  );
}

export function DeliveryStateTag({ state }: { state: DeliveryState }) {
  const { t } = useTranslation();
  return (
    <Tag color={DELIVERY_STATE_COLOR[state]} data-testid="delivery-state">
      {t(`push.delivery.${state}`)}
    </Tag>
  );
}
