import { App, Flex, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { DeviceUnbindResult } from '@cpc/contracts/device';

/** Each unbound device's new bind key, to copy: the one on its label (or the last one issued) no longer binds it. */
export function NewBindKeys({ keys }: { keys: DeviceUnbindResult[] }) {
  const { t } = useTranslation();
  return (
    <Flex vertical gap={12} data-testid="new-bind-keys">
      <Typography.Text type="secondary">{t('device.unbind.keys.note')}</Typography.Text>
      <Flex vertical gap={6}>
        {keys.map((k) => (
          <Flex key={k.sn} justify="space-between" gap={12} wrap data-sn={k.sn}>
            <Typography.Text>{k.sn}</Typography.Text>
            <Typography.Text code copyable={{ text: k.bindKey }} data-bind-key={k.bindKey}>
              {k.bindKey}
            </Typography.Text>
          </Flex>
        ))}
      </Flex>
    </Flex>
  );
}

/**
 * After unbinding: shows the new keys in a dialog that only its button closes (they are shown this once). It
 * lives with the app, not the page, so it stays when the detail page goes back to the list.
 */
export function useShowNewBindKeys(): (keys: DeviceUnbindResult[]) => void {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  return (keys) => {
    if (!keys.length) return;
    modal.success({
      title:
        keys.length === 1 ? t('device.unbind.keys.title') : t('device.unbind.keys.titleMany', { count: keys.length }),
      content: <NewBindKeys keys={keys} />,
      okText: t('device.unbind.keys.ok'),
      width: 480,
      maskClosable: false,
      keyboard: false,
    });
  };
}
