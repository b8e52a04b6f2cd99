import { Badge, Flex, Tag, Tooltip, Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import type { DeviceStatus, PaperState, SimState } from '@cpc/contracts/device';
import type { TaskState } from '@cpc/contracts';
import { formatDateTime, formatRelativeTime } from '@/lib/format/relative-time';
import { formatSize } from '@/lib/format/size';
import { useLanguage } from '@/lib/i18n';
import { TASK_STATE_COLOR } from '../utils/task-states';

/** Small pieces that show one device value the same way in the list, the detail and the task drawer. */

export function StatusBadge({ status }: { status: DeviceStatus }) {
  const { t } = useTranslation();
  return (
    <Badge
      status={status === 'online' ? 'success' : 'default'}
      text={t(`device.status.${status}`)}
      data-status={status}
    />
  );
}

/** `short`: a word for a narrow column, the full state on hover. */
export function PaperTag({ paper, short }: { paper: PaperState; short?: boolean }) {
  const { t } = useTranslation();
  const label = t(`device.${short ? 'paperShort' : 'paper'}.${paper}`);
  const tag =
    paper === 'ok' ? (
      <Typography.Text type="secondary">{label}</Typography.Text>
    ) : (
      <Tag color={paper === 'out' ? 'error' : 'warning'} style={{ marginInlineEnd: 0 }}>
        {label}
      </Tag>
    );
  return short && paper !== 'ok' ? <Tooltip title={t(`device.paper.${paper}`)}>{tag}</Tooltip> : tag;
}

/** Battery as a bar and its percentage: red under 20 %, orange under 50 %. */
export function BatteryCell({ value }: { value: number | null }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  if (value === null) return <Typography.Text type="secondary">{t('device.none')}</Typography.Text>;
  const color = value < 20 ? token.colorError : value < 50 ? token.colorWarning : token.colorSuccess;
  return (
    <Flex align="center" gap={6} aria-label={`${t('device.list.columns.battery')} ${value}%`}>
      <span style={{ display: 'inline-flex', alignItems: 'center' }} aria-hidden>
        <span
          style={{
            width: 22,
            height: 11,
            border: `1px solid ${token.colorTextTertiary}`,
            borderRadius: 2,
            padding: 1,
            display: 'inline-block',
          }}
        >
          <span
            style={{
              display: 'block',
              height: '100%',
              width: `${Math.max(4, Math.min(100, value))}%`,
              background: color,
              borderRadius: 1,
            }}
          />
        </span>
        <span style={{ width: 2, height: 5, background: token.colorTextTertiary, borderRadius: '0 1px 1px 0' }} />
      </span>
      <span>{t('device.percent', { value })}</span>
    </Flex>
  );
}

/** Signal as four bars (one per quarter) and its percentage. */
export function SignalCell({ value }: { value: number | null }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  if (value === null) return <Typography.Text type="secondary">{t('device.none')}</Typography.Text>;
  const bars = value <= 0 ? 0 : Math.min(4, Math.ceil(value / 25));
  const color = bars <= 1 ? token.colorError : bars === 2 ? token.colorWarning : token.colorSuccess;
  return (
    <Flex align="center" gap={6} aria-label={`${t('device.list.columns.signal')} ${value}%`}>
      <svg width="16" height="12" viewBox="0 0 16 12" aria-hidden>
        {[0, 1, 2, 3].map((i) => (
          <rect
            key={i}
            x={i * 4}
            y={9 - i * 3}
            width="3"
            height={3 + i * 3}
            rx="0.5"
            fill={i < bars ? color : token.colorFillSecondary}
          />
        ))}
      </svg>
      <span>{t('device.percent', { value })}</span>
    </Flex>
  );
}

const MB = 1024 * 1024;

/** Data amounts arrive in MB: under a GB they read as MB with two decimals at most, above in the larger units. */
export function formatMb(mb: number): string {
  const v = Math.max(0, mb);
  return v < 1024 ? `${Math.round(v * 100) / 100} MB` : formatSize(v * MB);
}

/** Data left on the SIM; "no SIM" without one, "no plan" when its plan is 0 MB (nothing to count down from). */
export function DataLeftCell({ mb, plan, state }: { mb: number | null; plan: number | null; state: SimState | null }) {
  const { t } = useTranslation();
  if (mb === null) return <Typography.Text type="secondary">{t('device.noSim')}</Typography.Text>;
  return (
    <Flex align="center" gap={4} wrap>
      {plan === 0 ? (
        <Typography.Text type="secondary">{t('device.noPlan')}</Typography.Text>
      ) : (
        <span>{formatMb(mb)}</span>
      )}
      {state && state !== 'active' && (
        <Tag color={state === 'low' ? 'warning' : 'error'}>{t(`device.simState.${state}`)}</Tag>
      )}
    </Flex>
  );
}

/** "3 minutes ago", with the exact time on hover; `now` ticks in the page so the words stay true. */
export function SeenAt({ at, now, empty }: { at: string | null; now: number; empty?: string }) {
  const { t } = useTranslation();
  const { language } = useLanguage();
  if (!at) return <Typography.Text type="secondary">{empty ?? t('device.never')}</Typography.Text>;
  return (
    <Tooltip title={formatDateTime(at)}>
      <span>{formatRelativeTime(at, language, now)}</span>
    </Tooltip>
  );
}

export function TaskStateTag({ state }: { state: TaskState }) {
  const { t } = useTranslation();
  return (
    <Tag color={TASK_STATE_COLOR[state]} data-task-state={state}>
      {t(`device.task.state.${state}`)}
    </Tag>
  );
}
