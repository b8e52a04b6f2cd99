import { Card, Empty, Table, type TableColumnsType } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';

/** A row of the device list; the fields follow DESIGN §4 and arrive with the device API. */
interface DeviceRow {
  sn: string;
  name: string;
  model: string;
  status: 'online' | 'offline';
  paper: string;
  signal: number | null;
  lastSeen: string | null;
}

/** "My devices". The device API is a later issue, so the list is the empty state for now. */
export default function DeviceListPage() {
  const { t } = useTranslation();
  const columns = useMemo<TableColumnsType<DeviceRow>>(
    () =>
      (['name', 'sn', 'model', 'status', 'paper', 'signal', 'lastSeen'] as const).map((key) => ({
        key,
        dataIndex: key,
        title: t(`device.list.columns.${key}`),
      })),
    [t],
  );

  return (
    <Card variant="borderless" title={t('device.list.title')}>
      <Table<DeviceRow>
        rowKey="sn"
        columns={columns}
        dataSource={[]}
        pagination={false}
        scroll={{ x: 'max-content' }}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('device.list.empty')} /> }}
      />
    </Card>
  );
}
