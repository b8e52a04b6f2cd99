import { App, Flex, Typography } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { CommandType } from '@cpc/contracts';
import { useSendCommand } from '../api/tasks';
import { TaskDrawer, type CommandRun } from '../components/task-drawer';
import { commandConfirm, type CommandTarget } from '../utils/command-confirm';

/**
 * Reboot and shutdown, from the list (one or many) and the detail page: a confirmation naming the time the
 * devices act (SPEC §5), the command, then the drawer with its tasks. Returns the drawer to render.
 */
export function useDeviceCommand(): { confirm: (type: CommandType, targets: CommandTarget[], onSent?: () => void) => void; drawer: ReactNode; openRun: (run: CommandRun) => void } {
  const { t } = useTranslation();
  const { modal, message } = App.useApp();
  const send = useSendCommand();
  const [run, setRun] = useState<CommandRun | null>(null);

  const confirm = (type: CommandType, targets: CommandTarget[], onSent?: () => void) => {
    if (!targets.length) return;
    const text = commandConfirm(type, targets, new Date(), t);
    modal.confirm({
      title: text.title,
      content: (
        <Flex vertical gap={4} data-testid="command-confirm">
          <Typography.Text>{text.content}</Typography.Text>
          {text.note && <Typography.Text type="secondary">{text.note}</Typography.Text>}
          {type === 'shutdown' && <Typography.Text type="warning">{t('device.command.confirm.shutdownWarning')}</Typography.Text>}
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

  return { confirm, drawer: <TaskDrawer run={run} onClose={() => setRun(null)} />, openRun: setRun };
}
