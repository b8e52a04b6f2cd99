import { DownloadOutlined } from '@ant-design/icons';
import { Alert, App, Button, Modal, Table, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { RegisteredDevice } from '@cpc/contracts/device-registry';
import { downloadText, keysCsv, keysFileName } from '../utils/csv';

interface KeysModalProps {
  /** The devices just registered; null closes the dialog. Their keys live only in this state. */
  devices: RegisteredDevice[] | null;
  onClose: () => void;
}

/**
 * The bind keys and secrets of devices just registered. The server keeps only a hash of the key and never
 * answers either again, so the dialog insists on a download before it lets them go.
 */
export function KeysModal({ devices, onClose }: KeysModalProps) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const [downloaded, setDownloaded] = useState(false);
  useEffect(() => setDownloaded(false), [devices]);

  const download = () => {
    if (!devices) return;
    downloadText(keysFileName(new Date()), keysCsv(devices));
    setDownloaded(true);
  };

  const close = () => {
    if (downloaded) return onClose();
    modal.confirm({
      title: t('deviceRegistry.keys.closeTitle'),
      content: t('deviceRegistry.keys.closeContent'),
      okText: t('deviceRegistry.keys.closeOk'),
      okButtonProps: { danger: true },
      cancelText: t('deviceRegistry.keys.closeCancel'),
      onOk: onClose,
    });
  };

  const code = (v: string) => (
    <Typography.Text code copyable={{ text: v }} style={{ whiteSpace: 'nowrap' }}>
      {v}
    </Typography.Text>
  );

  return (
    <Modal
      open={!!devices}
      title={t('deviceRegistry.keys.title', { n: devices?.length ?? 0 })}
      width={960}
      maskClosable={false}
      keyboard={false}
      // the keys leave the page with the dialog
      destroyOnHidden
      onCancel={close}
      footer={[
        <Button key="close" onClick={close}>
          {t('deviceRegistry.keys.close')}
        </Button>,
        <Button key="download" type="primary" icon={<DownloadOutlined />} onClick={download}>
          {t('deviceRegistry.keys.download')}
        </Button>,
      ]}
    >
      <Alert
        type="warning"
        showIcon
        title={t('deviceRegistry.keys.warningTitle')}
        description={t('deviceRegistry.keys.warning')}
        style={{ marginBottom: 16 }}
        data-testid="keys-warning"
      />
      <Table<RegisteredDevice>
        rowKey="id"
        size="small"
        dataSource={devices ?? []}
        pagination={(devices?.length ?? 0) > 10 ? { pageSize: 10, showSizeChanger: false } : false}
        scroll={{ x: 900 }}
        data-testid="keys-table"
        columns={[
          { key: 'sn', dataIndex: 'sn', title: t('deviceRegistry.column.sn'), width: 150 },
          { key: 'model', dataIndex: 'model', title: t('deviceRegistry.column.modelCode'), width: 110 },
          { key: 'bindKey', dataIndex: 'bindKey', title: t('deviceRegistry.form.bindKey'), width: 170, render: code },
          { key: 'secret', dataIndex: 'secret', title: t('deviceRegistry.form.secret'), render: code },
          { key: 'iccid', dataIndex: 'iccid', title: 'ICCID', width: 190 },
          { key: 'imei', dataIndex: 'imei', title: 'IMEI', width: 150 },
        ]}
      />
    </Modal>
  );
}
