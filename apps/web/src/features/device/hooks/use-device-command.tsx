import { App, Flex, Typography } from 'antd';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { CommandType } from '@cpc/contracts';
import { useSendCommand } from '../api/tasks';
import type { CommandRun } from '../components/task-drawer';
import { withChunkTimeout } from '@/lib/lazy-chunk';
import { commandConfirm, type CommandTarget } from '../utils/command-confirm';

// the drawer (with antd's Table) loads with the first command, not with the pages that offer one
const TaskDrawer = lazy(
  withChunkTimeout(() => import('../components/task-drawer').then((m) => ({ default: m.TaskDrawer }))),
);

/**
 * Reboot and shutdown, from the list (one or many) and the detail page: a confirmation naming the time the
 * devices act (SPEC §5), the command, then the drawer with its tasks. Returns the drawer to render.
 */
export function useDeviceCommand(): {
  confirm: (type: CommandType, targets: CommandTarget[], onSent?: () => void) => void;
  drawer: ReactNode;
  openRun: (run: CommandRun) => void;
} {
  const { t } = useTranslation();
  const { modal, message } = App.useApp();
  const send = useSendCommand();
  const [run, setRunState] = useState<CommandRun | null>(null);
  // mounted from the first run on, so that closing it still animates
  const [opened, setOpened] = useState(false);
  const setRun = (next: CommandRun | null) => {
    if (next) setOpened(true);
    setRunState(next);
  };

  const confirm = (type: CommandType, targets: CommandTarget[], onSent?: () => void) => {
    if (!targets.length) return;
    const text = commandConfirm(type, targets, new Date(), t);
    modal.confirm({
      title: text.title,
      content: (
        <Flex vertical gap={4} data-testid="command-confirm">
          <Typography.Text>{text.content}</Typography.Text>
          {text.note && <Typography.Text type="secondary">{text.note}</Typography.Text>}
          {type === 'shutdown' && (
            <Typography.Text type="warning">{t('device.command.confirm.shutdownWarning')}</Typography.Text>
          )}
        </Flex>
      ),
      okText: t('device.command.confirm.ok'),
      cancelText: t('device.command.confirm.cancel'),
      okButtonProps: type === 'shutdown' ? { danger: true } : undefined,
      onOk: async () => {
        const deviceIds = targets.map((d) => d.id);
        try {
          const result = await send.mutateAsync({ type, deviceIds });
          message.success(t('device.command.sent'));
          setRun({ type, batchId: result.batchId, taskIds: result.taskIds, deviceIds });
          onSent?.();
        } catch {
          // the request layer has said why
        }
      },
    });
  };

  const drawer = opened ? (
    <Suspense fallback={null}>
      <TaskDrawer run={run} onClose={() => setRun(null)} />
    </Suspense>
  ) : null;
  return { confirm, drawer, openRun: setRun };
}
