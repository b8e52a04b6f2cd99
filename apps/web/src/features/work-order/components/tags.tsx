import { Tag, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { WorkOrderPriority, WorkOrderState } from '@cpc/contracts/work-order';
import { formatDateTime } from '@/lib/format/relative-time';
import { dueIn } from '../utils/due';
import { priorityColor, stateColor } from '../utils/filter';

export function StateTag({ state }: { state: WorkOrderState }) {
  const { t } = useTranslation();
  return (
    <Tag color={stateColor(state)} data-testid="work-order-state" data-state={state}>
      {t(`workOrder.state.${state}`)}
    </Tag>
  );
}

export function PriorityTag({ priority }: { priority: WorkOrderPriority }) {
  const { t } = useTranslation();
  return <Tag color={priorityColor(priority)}>{t(`workOrder.priority.${priority}`)}</Tag>;
}

/**
 * A target time said relative to now ("in 3 h", "2 h overdue"), the exact time in its tooltip; red once it passed
 * while still open (`done`: the target was met or no longer matters, then it is shown plain).
 */
export function DueTime({ at, now, done }: { at: string; now: number; done: boolean }) {
  const { t } = useTranslation();
  const due = dueIn(at, now);
  const late = !done && due.late;
  return (
    <Tooltip title={formatDateTime(at)}>
      <Typography.Text type={late ? 'danger' : done ? 'secondary' : undefined} data-late={late || undefined}>
        {done
          ? formatDateTime(at)
          : t(due.late ? 'workOrder.due.late' : 'workOrder.due.in', { n: due.n, unit: t(`workOrder.due.${due.unit}`) })}
      </Typography.Text>
    </Tooltip>
  );
}
