import { Card, Col, Empty, Table, Typography } from 'antd';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { DeviceInventory } from '@cpc/contracts/application';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { formatDateTime } from '@/lib/format/relative-time';
import { useLiveEvents } from '@/lib/live-events';
import { request } from '@/lib/request';
import { usePermission } from '@/lib/session';

const key = (deviceId: number) => ['device', 'inventory', deviceId] as const;

/**
 * A device's installed apps and AI models as it last reported them (issue 15): two cards of the detail page,
 * read again when the application section says the device's inventory changed.
 */
export function InstalledSoftware({ deviceId }: { deviceId: number }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const apps = usePermission([PERMISSIONS.applicationView, PERMISSIONS.deviceView]);
  const models = usePermission([PERMISSIONS.aiLibraryView, PERMISSIONS.deviceView]);
  const inv = useQuery({
    queryKey: key(deviceId),
    queryFn: () => request<DeviceInventory>({ url: `/application/device/${deviceId}/inventory`, method: 'get' }),
  });
  useLiveEvents({
    application: (e) => {
      if (e.deviceIds.includes(deviceId)) void client.invalidateQueries({ queryKey: key(deviceId) });
    },
  });
  const data = inv.data;
  const extra = data?.reportedAt ? (
    <Typography.Text type="secondary" style={{ fontSize: 12 }}>
      {t('device.detail.software.reportedAt', { at: formatDateTime(data.reportedAt) })}
    </Typography.Text>
  ) : null;
  const none = <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('device.detail.software.none')} />;
  return (
    <>
      {apps && (
        <Col xs={24} lg={12}>
          <Card
            variant="borderless"
            title={t('device.detail.software.apps')}
            extra={extra}
            style={{ height: '100%' }}
            data-testid="device-apps"
          >
            {data && !data.reportedAt ? (
              none
            ) : (
              <Table
                size="small"
                rowKey="pkg"
                loading={inv.isPending}
                dataSource={data?.apps ?? []}
                pagination={(data?.apps.length ?? 0) > 8 ? { pageSize: 8, size: 'small' } : false}
                scroll={{ x: 360 }}
                locale={{ emptyText: t('device.detail.software.empty') }}
                columns={[
                  {
                    title: t('device.detail.software.column.name'),
                    key: 'name',
                    render: (_, r) => (
                      <>
                        <Typography.Text>{r.name || r.pkg}</Typography.Text>
                        {r.name && r.name !== r.pkg && (
                          <>
                            <br />
                            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                              {r.pkg}
                            </Typography.Text>
                          </>
                        )}
                      </>
                    ),
                  },
                  {
                    title: t('device.detail.software.column.version'),
                    key: 'version',
                    render: (_, r) => `${r.versionName} (${r.versionCode})`,
                  },
                ]}
              />
            )}
            {data?.storageFreeMb != null && (
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {t('device.detail.software.storage', { mb: Math.round(data.storageFreeMb) })}
              </Typography.Text>
            )}
          </Card>
        </Col>
      )}
      {models && (
        <Col xs={24} lg={12}>
          <Card
            variant="borderless"
            title={t('device.detail.software.models')}
            style={{ height: '100%' }}
            data-testid="device-models"
          >
            {data && !data.reportedAt ? (
              none
            ) : (
              <Table
                size="small"
                rowKey="name"
                loading={inv.isPending}
                dataSource={data?.models ?? []}
                pagination={false}
                locale={{ emptyText: t('device.detail.software.empty') }}
                columns={[
                  { title: t('device.detail.software.column.name'), dataIndex: 'name' },
                  { title: t('device.detail.software.column.version'), dataIndex: 'version' },
                  { title: t('device.detail.software.column.framework'), dataIndex: 'framework' },
                ]}
              />
            )}
          </Card>
        </Col>
      )}
    </>
  );
}
