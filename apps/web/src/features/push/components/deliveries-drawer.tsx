import { ReloadOutlined } from '@ant-design/icons';
import {
  App,
  Button,
  DatePicker,
  Descriptions,
  Drawer,
  Flex,
  Grid,
  Popconfirm,
  Segmented,
  Table,
  Typography,
} from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DELIVERY_STATES, type DeliveryItem, type DeliveryState } from '@cpc/contracts/push';
import { formatDateTime } from '@/lib/format/relative-time';
import { useDeliveries, usePush, useRetryPush } from '../api/push';
import { undeliveredCount } from '../utils/progress';
import { DeliveryStateTag, PushStateTag } from './tags';
import { TerminalPreview } from './terminal-preview';

const time = (s: string | null) => (s ? dayjs(s).format('MM-DD HH:mm:ss') : '-');

/**
 * One push: what it says (as the terminal shows it), its counts per delivery state (a count filters the table),
 * the per-device deliveries, live, and "retry undelivered" (with a new expiry once the push expired).
 */
export function DeliveriesDrawer({
  id,
  onClose,
  canEdit,
}: {
  id: number | null;
  onClose: () => void;
  canEdit: boolean;
}) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const narrow = !Grid.useBreakpoint().md;
  const [state, setState] = useState<DeliveryState | 'all'>('all');
  const [page, setPage] = useState({ pageNo: 1, pageSize: 20 });
  const [expiry, setExpiry] = useState<Dayjs | null>(null);
  const push = usePush(id);
  const rows = useDeliveries(id, { ...page, ...(state === 'all' ? {} : { state }) });
  const retry = useRetryPush();
  const p = push.data;
  const expired = p ? dayjs(p.expireAt).isBefore(dayjs()) : false;
  const undelivered = p ? undeliveredCount(p.counts) : 0;

  const doRetry = async () => {
    if (!p) return;
    const res = await retry.mutateAsync({ id: p.id, ...(expired && expiry ? { expireAt: expiry.toISOString() } : {}) });
    message.success(t('push.detail.retried', { n: res.retried }));
  };

  return (
    <Drawer
      open={id != null}
      onClose={onClose}
      size={narrow ? '100%' : 860}
      destroyOnHidden
      title={p ? p.title : t('push.detail.title')}
      extra={
        <Button icon={<ReloadOutlined />} onClick={() => void rows.refetch()} aria-label={t('push.detail.refresh')} />
      }
    >
      {p && (
        <Flex vertical gap={16}>
          <Flex gap={16} wrap>
            <div style={{ flex: '0 0 240px', maxWidth: '100%' }}>
              <TerminalPreview
                kind={p.kind}
                title={p.title}
                body={p.body}
                imageUrl={p.imageUrl}
                link={p.link}
                noticeSeconds={p.noticeSeconds}
              />
            </div>
            <Descriptions
              size="small"
              column={1}
              style={{ flex: '1 1 260px', minWidth: 0 }}
              items={[
                { key: 'state', label: t('push.list.state'), children: <PushStateTag state={p.state} /> },
                { key: 'kind', label: t('push.list.kind'), children: t(`push.kind.${p.kind}`) },
                {
                  key: 'when',
                  label: t('push.list.when'),
                  children: formatDateTime(p.startedAt ?? p.scheduledAt ?? p.createdAt),
                },
                { key: 'expireAt', label: t('push.list.expireAt'), children: formatDateTime(p.expireAt) },
                { key: 'by', label: t('push.detail.createdBy'), children: p.createdBy ?? '-' },
                { key: 'total', label: t('push.detail.total'), children: p.total },
              ]}
            />
          </Flex>
          <Segmented<DeliveryState | 'all'>
            data-testid="delivery-filter"
            block={narrow}
            style={{ flexWrap: 'wrap' }}
            value={state}
            onChange={(v) => {
              setState(v);
              setPage((x) => ({ ...x, pageNo: 1 }));
            }}
            options={[
              { value: 'all', label: `${t('push.detail.all')} ${p.total}` },
              ...DELIVERY_STATES.map((s) => ({
                value: s,
                label: (
                  <span data-testid={`count-${s}`}>
                    {t(`push.delivery.${s}`)} {p.counts[s]}
                  </span>
                ),
              })),
            ]}
          />
          {canEdit && p.state !== 'scheduled' && p.state !== 'canceled' && (
            <Flex gap={8} wrap align="center">
              {expired && (
                <DatePicker
                  showTime
                  value={expiry}
                  onChange={setExpiry}
                  placeholder={t('push.detail.newExpiry')}
                  disabledDate={(d) => d.isBefore(dayjs(), 'day')}
                  data-testid="retry-expiry"
                />
              )}
              <Popconfirm
                title={t('push.detail.retryConfirm', { n: undelivered })}
                onConfirm={() => doRetry().catch(() => {})}
                disabled={!undelivered || (expired && !expiry)}
              >
                <Button
                  type="primary"
                  disabled={!undelivered || (expired && !expiry)}
                  loading={retry.isPending}
                  data-testid="retry-undelivered"
                >
                  {t('push.detail.retry', { n: undelivered })}
                </Button>
              </Popconfirm>
              {expired && <Typography.Text type="secondary">{t('push.detail.expiredHint')}</Typography.Text>}
            </Flex>
          )}
          <Table<DeliveryItem>
            rowKey="deviceId"
            size="small"
            data-testid="delivery-table"
            scroll={{ x: 'max-content' }}
            loading={rows.isLoading}
            dataSource={rows.data?.list ?? []}
            locale={{ emptyText: t('push.detail.empty') }}
            pagination={{
              current: page.pageNo,
              pageSize: page.pageSize,
              total: rows.data?.total ?? 0,
              onChange: (pageNo, pageSize) => setPage({ pageNo, pageSize }),
              size: 'small',
            }}
            columns={[
              {
                key: 'device',
                title: t('push.detail.device'),
                render: (_, r) => (
                  <Flex vertical>
                    <span>{r.deviceName || r.sn}</span>
                    <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                      {r.deviceName && r.deviceName !== r.sn ? `${r.sn} · ` : ''}
                      {r.online ? t('push.detail.online') : t('push.detail.offline')}
                    </Typography.Text>
                  </Flex>
                ),
              },
              {
                key: 'state',
                title: t('push.list.state'),
                render: (_, r) => (
                  <span data-sn={r.sn}>
                    <DeliveryStateTag state={r.state} />
                  </span>
                ),
              },
              { key: 'sent', title: t('push.detail.sentAt'), render: (_, r) => time(r.sentAt) },
              { key: 'delivered', title: t('push.detail.deliveredAt'), render: (_, r) => time(r.deliveredAt) },
              { key: 'displayed', title: t('push.detail.displayedAt'), render: (_, r) => time(r.displayedAt) },
              { key: 'clicked', title: t('push.detail.clickedAt'), render: (_, r) => time(r.clickedAt) },
              {
                key: 'error',
                title: t('push.detail.error'),
                render: (_, r) => (r.error ? <Typography.Text type="danger">{r.error}</Typography.Text> : null),
              },
            ]}
          />
        </Flex>
      )}
    </Drawer>
  );
}
