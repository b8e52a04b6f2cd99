import { Button, Descriptions, Flex, Modal, QRCode, Result, Spin, Table, Typography } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { OrderDetail, PayStart } from '@cpc/contracts/order';
import { formatFen, formatMb } from '@/lib/format/money';
import { formatDateTime } from '@/lib/format/relative-time';
import { useLiveEvents } from '@/lib/live-events';
import { ORDER_KEY, SIM_KEY, useOrder } from '../api/order';

interface PayModalProps {
  order: OrderDetail | null;
  payment: PayStart | null;
  onRetry: () => void;
  onCancelOrder: () => void;
  onClose: () => void;
  onRecords: () => void;
  retrying?: boolean;
}

/**
 * The cashier step: the QR code and a link to the gateway's page, then the result. The order is read every 2 s
 * and at once on its live event, until it is fulfilled, failed or closed.
 */
export function PayModal({ order, payment, onRetry, onCancelOrder, onClose, onRecords, retrying }: PayModalProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const current = useOrder(order?.id ?? null, !!order);
  const o = current.data ?? order;
  const waiting = o?.state === 'pending' || o?.state === 'paid';
  useLiveEvents({
    order: (e) => {
      if (e.id !== order?.id) return;
      void client.invalidateQueries({ queryKey: ORDER_KEY });
      if (e.state === 'fulfilled') void client.invalidateQueries({ queryKey: SIM_KEY });
    },
  });
  const fulfilled = o?.state === 'fulfilled';
  // the SIMs' data grew: the picker reads them again (also when the poll, not the live event, saw it first)
  useEffect(() => {
    if (fulfilled) void client.invalidateQueries({ queryKey: SIM_KEY });
  }, [fulfilled, client]);
  if (!o) return null;

  const footer =
    o.state === 'pending'
      ? [
          <Button key="cancel" danger onClick={onCancelOrder}>
            {t('order.pay.cancelOrder')}
          </Button>,
          <Button key="close" onClick={onClose}>
            {t('order.pay.close')}
          </Button>,
        ]
      : [
          <Button key="records" onClick={onRecords}>
            {t('order.pay.viewRecords')}
          </Button>,
          <Button key="close" type="primary" onClick={onClose}>
            {t('order.pay.close')}
          </Button>,
        ];

  return (
    <Modal open title={t('order.pay.title', { orderNo: o.orderNo })} onCancel={onClose} footer={footer} width={560}>
      {o.state === 'fulfilled' ? (
        <Result
          status="success"
          title={t('order.pay.fulfilled')}
          subTitle={formatFen(o.totalFen)}
          data-testid="pay-result"
          extra={
            <Table
              size="small"
              rowKey="id"
              pagination={false}
              dataSource={o.lines}
              columns={[
                { key: 'iccid', dataIndex: 'iccid', title: t('order.detail.iccid') },
                {
                  key: 'plan',
                  title: t('order.detail.plan'),
                  render: (_, l) =>
                    l.planAfter == null
                      ? t('order.detail.notYet')
                      : `${formatMb(l.planBefore ?? 0)} → ${formatMb(l.planAfter)}`,
                },
              ]}
            />
          }
        />
      ) : o.state === 'pending' && o.payFailedAt ? (
        <Result
          status="error"
          title={t('order.pay.failed')}
          data-testid="pay-result"
          extra={
            <Button type="primary" loading={retrying} onClick={onRetry}>
              {t('order.pay.retry')}
            </Button>
          }
        />
      ) : o.state === 'pending' ? (
        <Flex vertical align="center" gap={12}>
          <Descriptions
            size="small"
            column={1}
            items={[{ key: 'amount', label: t('order.pay.amount'), children: <b>{formatFen(o.totalFen)}</b> }]}
          />
          {payment ? (
            <>
              <QRCode value={payment.qrContent} size={180} color="#000" bgColor="#fff" />
              <Typography.Text type="secondary">{t('order.pay.scan')}</Typography.Text>
              <Button
                type="primary"
                href={payment.cashierUrl}
                target="_blank"
                rel="noopener"
                data-testid="cashier-link"
              >
                {t('order.pay.open')}
              </Button>
            </>
          ) : (
            <Spin />
          )}
          <Typography.Text type="secondary">
            {t('order.pay.expiresAt', { time: formatDateTime(o.expiresAt) })}
          </Typography.Text>
          <Flex align="center" gap={8}>
            <Spin size="small" />
            <Typography.Text>{t('order.pay.waiting')}</Typography.Text>
          </Flex>
        </Flex>
      ) : (
        <Result
          status={waiting ? 'info' : 'warning'}
          title={waiting ? t('order.pay.waiting') : t(`order.pay.${o.state as 'closed' | 'canceled' | 'refunded'}`)}
          data-testid="pay-result"
        />
      )}
    </Modal>
  );
}
