import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { SimState } from '@cpc/contracts/device';
import { stateColor } from '../utils/filter';

export function StateTag({ state }: { state: SimState }) {
  const { t } = useTranslation();
  return <Tag color={stateColor(state)}>{t(`flowRate.state.${state}`)}</Tag>;
}
