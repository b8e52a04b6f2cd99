import { Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ProfileApplyState, SystemCustomPart } from '@cpc/contracts/system-custom';

const STATE_COLORS: Record<ProfileApplyState, string | undefined> = {
  none: undefined,
  queued: 'processing',
  delivered: 'cyan',
  applied: 'success',
  failed: 'error',
};

/** A device's apply state, with the device's reason when it failed. */
export function ApplyStateTag({ state, reason }: { state: ProfileApplyState; reason?: string }) {
  const { t } = useTranslation();
  const tag = (
    <Tag color={STATE_COLORS[state]} data-testid="apply-state" data-state={state}>
      {t(`systemCustom.state.${state}`)}
    </Tag>
  );
  return state === 'failed' && reason ? <Tooltip title={reason}>{tag}</Tooltip> : tag;
}

/** Drift: which parts the device's reported configuration differs in, or "in line". */
export function DriftTag({ drift, fields }: { drift: boolean; fields: SystemCustomPart[] }) {
  const { t } = useTranslation();
  if (!drift)
    return (
      <Tag data-testid="drift" data-drift="false">
        {t('systemCustom.drift.none')}
      </Tag>
    );
  return (
    <Tag color="warning" data-testid="drift" data-drift="true">
      {t('systemCustom.drift.yes', {
        fields: fields.map((f) => t(`systemCustom.part.${f}`)).join(t('systemCustom.listSeparator')),
      })}
    </Tag>
  );
}
