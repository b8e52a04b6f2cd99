import { SendOutlined } from '@ant-design/icons';
import { App, Button, Descriptions, Drawer, Flex, Grid, Select, Skeleton, Table, Tag, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import { useState, type HTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';
import type { WebhookAttempt, WebhookDeliveryItem } from '@cpc/contracts/integration';
import {
  WEBHOOK_DELIVERY_STATES,
  WEBHOOK_EVENT,
  type WebhookDeliveryState,
} from '@cpc/contracts/integration-constants';
import { useDeliveries, useDelivery, useKeys, useResendDelivery } from '../api/integration';
import { DELIVERY_STATE_COLOR, JOB_STATE_COLOR, shortId } from '../utils/format';
import { formatSeconds } from '../../../lib/format/relative-time';
import { CodeBlock } from './code-block';
import { LiveRefresh, usePagination } from './live-list';

const prettyJson = (text: string) => {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
};

/** The webhook delivery log: every callback, its attempts, and a manual resend. */
export function WebhooksPanel({ live }: { live: boolean }) {
  const { t } = useTranslation();
  const [filters, setFilters] = useState<{ keyId?: number; state?: WebhookDeliveryState }>({});
  const [page, setPage] = useState({ pageNo: 1, pageSize: 20 });
  const [open, setOpen] = useState<string | null>(null);
  const keys = useKeys({ pageNo: 1, pageSize: 100 });
  const polling = live && page.pageNo === 1;
  const list = useDeliveries({ ...page, ...filters }, polling);
  const pagination = usePagination(page, setPage, list.data?.total ?? 0);

  const columns: TableProps<WebhookDeliveryItem>['columns'] = [
    {
      key: 'createdAt',
      dataIndex: 'createdAt',
      title: t('integration.webhooks.createdAt'),
      width: 170,
      render: (v: string) => formatSeconds(v),
    },
    {
      key: 'job',
      dataIndex: 'originId',
      title: t('integration.webhooks.job'),
      width: 200,
      render: (v: string, r) => (
        <Flex vertical>
          <Typography.Text ellipsis={{ tooltip: v }}>{v}</Typography.Text>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {shortId(r.jobId)} · {r.appId}
          </Typography.Text>
        </Flex>
      ),
    },
    {
      key: 'event',
      dataIndex: 'jobState',
      title: t('integration.webhooks.event'),
      width: 130,
      render: (v: WebhookDeliveryItem['jobState']) => (
        <Tag color={JOB_STATE_COLOR[v]}>{t(`integration.jobState.${v}`)}</Tag>
      ),
    },
    {
      key: 'state',
      dataIndex: 'state',
      title: t('integration.webhooks.state'),
      width: 110,
      render: (v: WebhookDeliveryState, r) => (
        <Tooltip title={r.lastError || undefined}>
          <Tag color={DELIVERY_STATE_COLOR[v]}>{t(`integration.deliveryState.${v}`)}</Tag>
        </Tooltip>
      ),
    },
    {
      key: 'lastStatus',
      dataIndex: 'lastStatus',
      title: t('integration.webhooks.status'),
      width: 100,
      render: (v: number | null) =>
        v ?? <Typography.Text type="secondary">{t('integration.webhooks.noAnswer')}</Typography.Text>,
    },
    { key: 'attempts', dataIndex: 'attempts', title: t('integration.webhooks.attempts'), width: 80, align: 'right' },
    {
      key: 'next',
      dataIndex: 'nextAttemptAt',
      title: t('integration.webhooks.nextAttempt'),
      width: 170,
      render: (v: string | null) => formatSeconds(v),
    },
    {
      key: 'actions',
      title: t('integration.column.actions'),
      fixed: 'right',
      width: 90,
      render: (_, r) => (
        <Button type="link" size="small" onClick={() => setOpen(r.id)}>
          {t('integration.webhooks.detail')}
        </Button>
      ),
    },
  ];

  return (
    <Flex vertical gap={12}>
      <Typography.Text type="secondary">{t('integration.webhooks.hint', { event: WEBHOOK_EVENT })}</Typography.Text>
      <Flex gap={8} wrap align="center">
        <Select<number>
          allowClear
          value={filters.keyId}
          onChange={(keyId) => {
            setFilters((f) => ({ ...f, keyId }));
            setPage((p) => ({ ...p, pageNo: 1 }));
          }}
          placeholder={t('integration.filter.key')}
          options={(keys.data?.list ?? []).map((k) => ({ value: k.id, label: k.name }))}
          style={{ width: 180 }}
          aria-label={t('integration.filter.key')}
        />
        <Select<WebhookDeliveryState>
          allowClear
          value={filters.state}
          onChange={(state) => {
            setFilters((f) => ({ ...f, state }));
            setPage((p) => ({ ...p, pageNo: 1 }));
          }}
          placeholder={t('integration.filter.state')}
          options={WEBHOOK_DELIVERY_STATES.map((s) => ({ value: s, label: t(`integration.deliveryState.${s}`) }))}
          style={{ width: 140 }}
          aria-label={t('integration.filter.state')}
        />
        <LiveRefresh
          live={polling}
          refreshing={list.isFetching && !list.isPending}
          onRefresh={() => void list.refetch()}
        />
      </Flex>
      <Table<WebhookDeliveryItem>
        rowKey="id"
        columns={columns}
        dataSource={list.data?.list ?? []}
        loading={list.isPending}
        scroll={{ x: 1050 }}
        onRow={(r) =>
          ({ 'data-delivery-id': r.id, 'data-job-id': r.jobId, 'data-state': r.state }) as HTMLAttributes<HTMLElement>
        }
        locale={{ emptyText: t('integration.webhooks.empty') }}
        pagination={pagination}
      />
      <DeliveryDrawer id={open} onClose={() => setOpen(null)} />
    </Flex>
  );
}

function DeliveryDrawer({ id, onClose }: { id: string | null; onClose: () => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const screens = Grid.useBreakpoint();
  const delivery = useDelivery(id);
  const resend = useResendDelivery();
  const d = delivery.data;

  const columns: TableProps<WebhookAttempt>['columns'] = [
    {
      key: 'attempt',
      dataIndex: 'attempt',
      title: '#',
      width: 90,
      render: (v: number, r) => (
        <Flex gap={4} align="center">
          {v}
          {r.manual && <Tag style={{ marginInlineEnd: 0 }}>{t('integration.webhooks.manual')}</Tag>}
        </Flex>
      ),
    },
    {
      key: 'at',
      dataIndex: 'at',
      title: t('integration.webhooks.at'),
      width: 160,
      render: (v: string) => formatSeconds(v),
    },
    {
      key: 'status',
      dataIndex: 'status',
      title: t('integration.webhooks.status'),
      width: 90,
      render: (v: number | null) =>
        v === null ? (
          <Tag color="error">{t('integration.webhooks.noAnswer')}</Tag>
        ) : (
          <Tag color={v >= 200 && v < 300 ? 'success' : 'error'}>{v}</Tag>
        ),
    },
    {
      key: 'duration',
      dataIndex: 'durationMs',
      title: t('integration.webhooks.duration'),
      width: 80,
      align: 'right',
      render: (v: number) => `${v} ms`,
    },
    {
      key: 'response',
      dataIndex: 'response',
      title: t('integration.webhooks.response'),
      render: (v: string, r) => (
        <Typography.Text ellipsis={{ tooltip: r.error || v }}>{r.error || v || '-'}</Typography.Text>
      ),
    },
  ];

  return (
    <Drawer
      open={!!id}
      onClose={onClose}
      title={t('integration.webhooks.detailTitle')}
      size={screens.md ? 720 : '100%'}
      destroyOnHidden
      data-testid="delivery-drawer"
      extra={
        d && (
          <Button
            type="primary"
            size="small"
            icon={<SendOutlined />}
            loading={resend.isPending}
            onClick={() =>
              resend.mutateAsync(d.id).then(
                (r) => {
                  void delivery.refetch();
                  const ok = r.state === 'succeeded';
                  void message[ok ? 'success' : 'warning'](
                    t(ok ? 'integration.webhooks.resent' : 'integration.webhooks.resentFailed', {
                      status: r.lastStatus ?? '-',
                    }),
                  );
                },
                () => {},
              )
            }
          >
            {t('integration.webhooks.resend')}
          </Button>
        )
      }
    >
      {!d ? (
        <Skeleton active paragraph={{ rows: 8 }} />
      ) : (
        <Flex vertical gap={16}>
          <Descriptions column={1} size="small" bordered styles={{ label: { width: 120 } }}>
            <Descriptions.Item label={t('integration.webhooks.state')}>
              <Tag color={DELIVERY_STATE_COLOR[d.state]} data-testid="delivery-state">
                {t(`integration.deliveryState.${d.state}`)}
              </Tag>
            </Descriptions.Item>
            <Descriptions.Item label={t('integration.webhooks.callbackUrl')}>
              <Typography.Text style={{ wordBreak: 'break-all' }}>{d.callbackUrl}</Typography.Text>
            </Descriptions.Item>
            <Descriptions.Item label={t('integration.webhooks.event')}>
              {WEBHOOK_EVENT} · {t(`integration.jobState.${d.jobState}`)}
            </Descriptions.Item>
            <Descriptions.Item label={t('integration.webhooks.delivery')}>
              <Typography.Text copyable style={{ wordBreak: 'break-all' }}>
                {d.id}
              </Typography.Text>
            </Descriptions.Item>
            {d.lastError && (
              <Descriptions.Item label={t('integration.webhooks.lastError')}>{d.lastError}</Descriptions.Item>
            )}
          </Descriptions>
          <div>
            <Typography.Title level={5}>{t('integration.webhooks.body')}</Typography.Title>
            <CodeBlock code={prettyJson(d.payload)} maxHeight={260} testId="delivery-body" />
          </div>
          <div>
            <Typography.Title level={5}>{t('integration.webhooks.attemptLog')}</Typography.Title>
            <Table<WebhookAttempt>
              rowKey="attempt"
              size="small"
              columns={columns}
              dataSource={d.attemptLog}
              pagination={false}
              scroll={{ x: 560 }}
              locale={{ emptyText: t('integration.webhooks.noAttempts') }}
            />
          </div>
        </Flex>
      )}
    </Drawer>
  );
}
