import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { FenceAlertOn, FenceShape, FenceSide } from '@cpc/contracts/fence';
import { RULE_COLORS } from '../utils/fence';

export function RuleTag({ rule }: { rule: FenceAlertOn }) {
  const { t } = useTranslation();
  return <Tag color={RULE_COLORS[rule]}>{t(`fence.rule.${rule}`)}</Tag>;
}

const SIDE_TAG: Record<FenceSide, string> = { inside: 'success', outside: 'error', unknown: 'default' };

export function SideTag({ side }: { side: FenceSide }) {
  const { t } = useTranslation();
  return <Tag color={SIDE_TAG[side]}>{t(`fence.side.${side}`)}</Tag>;
}

/** "Circle, radius 300 m" / "Polygon, 5 points". */
export function ShapeText({ shape }: { shape: FenceShape }) {
  const { t } = useTranslation();
  if (shape.type === 'circle') {
    const r = shape.radiusM >= 1000 ? `${(shape.radiusM / 1000).toFixed(1)} km` : `${Math.round(shape.radiusM)} m`;
    return <>{t('fence.shape.circleOf', { r })}</>;
  }
  const first = shape.ring[0];
  const last = shape.ring[shape.ring.length - 1];
  const n = shape.ring.length - (first[0] === last[0] && first[1] === last[1] ? 1 : 0);
  return <>{t('fence.shape.polygonOf', { n })}</>;
}
