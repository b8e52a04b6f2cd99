import { useQuery } from '@tanstack/react-query';
import { Card, Empty, Table, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { Paged } from '@cpc/contracts/envelope';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import type { FirmwareHistoryItem } from '@cpc/contracts/upgrade';
import { formatDateTime } from '@/lib/format/relative-time';
import { useLiveEvents } from '@/lib/live-events';
import { request } from '@/lib/request';
import { usePermission } from '@/lib/session';

/** The device's firmware changes (issue 15): from which version to which, and whether a release brought it. */
export function FirmwareHistoryCard({ deviceId }: { deviceId: number }) {
  const { t } = useTranslation();
  const allowed = usePermission([PERMISSIONS.upgradeView, PERMISSIONS.deviceView]);
  const history = useQuery({
    queryKey: ['device', 'firmware-history', deviceId],
    queryFn: () =>
      request<Paged<FirmwareHistoryItem>>({
        url: '/upgrade/history',
        method: 'get',
        params: { deviceId, pageNo: 1, pageSize: 20 },
        quiet: true,
      }),
    enabled: allowed && deviceId > 0,
  });
  useLiveEvents({
    device: (e) => {
      if (e.id === deviceId) void history.refetch();
    },
  });
  if (!allowed) return null;
  return (
    <Card variant="borderless" title={t('device.firmwareHistory.title')} data-testid="firmware-history">
      <Table<FirmwareHistoryItem>
        rowKey="id"
        size="small"
        scroll={{ x: 'max-content' }}
        loading={history.isLoading}
        dataSource={history.data?.list ?? []}
        pagination={false}
        locale={{
          emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('device.firmwareHistory.empty')} />,
        }}
        columns={[
          { key: 'at', title: t('device.firmwareHistory.at'), render: (_, x) => formatDateTime(x.at) },
          {
            key: 'change',
            title: t('device.firmwareHistory.change'),
            render: (_, x) => `${x.fromVersion} → ${x.toVersion}`,
          },
          {
            key: 'source',
            title: t('device.firmwareHistory.source'),
            render: (_, x) =>
              x.source === 'release' ? (
                <Tag color="blue">{t('device.firmwareHistory.release', { name: x.releaseName ?? x.releaseId })}</Tag>
              ) : (
                <Tag>{t('device.firmwareHistory.hello')}</Tag>
              ),
          },
        ]}
      />
    </Card>
  );
}
