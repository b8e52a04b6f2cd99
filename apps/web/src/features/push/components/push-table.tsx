import { Button, Popconfirm, Progress, Space, Table, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { Paged } from '@cpc/contracts/envelope';
import type { PushItem } from '@cpc/contracts/push';
import { formatDateTime } from '@/lib/format/relative-time';
import { useCancelPush } from '../api/push';
import { percentShown, shownCount } from '../utils/progress';
import { PushStateTag } from './tags';

/** The pushes with their state, targets and progress (shown of total), live; a row opens its deliveries. */
export function PushTable({
  data,
  loading,
  page,
  onPage,
  onOpen,
  canEdit,
}: {
  data: Paged<PushItem> | undefined;
  loading: boolean;
  page: { pageNo: number; pageSize: number };
  onPage: (pageNo: number, pageSize: number) => void;
  onOpen: (id: number) => void;
  canEdit: boolean;
}) {
  const { t } = useTranslation();
  const cancel = useCancelPush();
  const targets = (p: PushItem) =>
    p.targets.all
      ? t('push.targets.all')
      : [
          p.targets.groupIds?.length ? t('push.targets.groupsN', { n: p.targets.groupIds.length }) : '',
          p.targets.deviceIds?.length ? t('push.targets.devicesN', { n: p.targets.deviceIds.length }) : '',
        ]
          .filter(Boolean)
          .join(' · ');
  return (
    <Table<PushItem>
      rowKey="id"
      size="middle"
      data-testid="push-table"
      scroll={{ x: 'max-content' }}
      loading={loading}
      dataSource={data?.list ?? []}
      locale={{ emptyText: t('push.list.empty') }}
      pagination={{
        current: page.pageNo,
        pageSize: page.pageSize,
        total: data?.total ?? 0,
        onChange: onPage,
        size: 'small',
      }}
      columns={[
        {
          key: 'title',
          title: t('push.list.title'),
          render: (_, r) => (
            <Button type="link" style={{ padding: 0, height: 'auto' }} onClick={() => onOpen(r.id)}>
              <Typography.Text ellipsis style={{ maxWidth: 220, color: 'inherit' }}>
                {r.title}
              </Typography.Text>
            </Button>
          ),
        },
        { key: 'kind', title: t('push.list.kind'), render: (_, r) => t(`push.kind.${r.kind}`) },
        { key: 'state', title: t('push.list.state'), render: (_, r) => <PushStateTag state={r.state} /> },
        { key: 'targets', title: t('push.list.targets'), render: (_, r) => targets(r) },
        {
          key: 'progress',
          title: t('push.list.progress'),
          render: (_, r) => (
            <Tooltip title={t('push.list.progressHint', { shown: shownCount(r.counts), total: r.total })}>
              <Space size={8} data-testid="push-progress">
                <Progress
                  style={{ width: 110, margin: 0 }}
                  percent={percentShown(r)}
                  size="small"
                  status={r.state === 'sending' ? 'active' : 'normal'}
                />
                <span>
                  {shownCount(r.counts)}/{r.total}
                </span>
              </Space>
            </Tooltip>
          ),
        },
        {
          key: 'when',
          title: t('push.list.when'),
          render: (_, r) => formatDateTime(r.startedAt ?? r.scheduledAt ?? r.createdAt),
        },
        { key: 'expireAt', title: t('push.list.expireAt'), render: (_, r) => formatDateTime(r.expireAt) },
        {
          key: 'op',
          title: '',
          render: (_, r) => (
            <Space size={0}>
              <Button type="link" onClick={() => onOpen(r.id)}>
                {t('push.list.open')}
              </Button>
              {canEdit && r.state === 'scheduled' && (
                <Popconfirm title={t('push.list.cancelConfirm')} onConfirm={() => cancel.mutateAsync(r.id)}>
                  <Button type="link" danger>
                    {t('push.list.cancel')}
                  </Button>
                </Popconfirm>
              )}
            </Space>
          ),
        },
      ]}
    />
  );
}
