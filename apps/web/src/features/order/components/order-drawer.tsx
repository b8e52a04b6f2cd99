import { PayCircleOutlined, PrinterOutlined, RollbackOutlined } from '@ant-design/icons';
import { App, Button, Descriptions, Drawer, Flex, Form, Input, Modal, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PERMISSIONS } from '@cpc/contracts';
import type { OrderDetail } from '@cpc/contracts/order';
import { formatFen, formatMb } from '@/lib/format/money';
import { formatDateTime } from '@/lib/format/relative-time';
import { usePermission, useSession } from '@/lib/session';
import { useFormLanguage } from '@/lib/use-form-language';
import { useCancelOrder, useOrder, usePayOrder, useRefundOrder } from '../api/order';
import { useLanguage } from '@/lib/i18n';
import { STATE_COLOR } from '../utils/order';
import './receipt.css';

const when = (v: string | null) => (v ? formatDateTime(v) : '–');

/** One order: lines, payment, fulfilment per SIM, refund; a printable receipt; staff refund with a reason. */
export function OrderDrawer({ id, onClose }: { id: number | null; onClose: () => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const detail = useOrder(id);
  const o = detail.data;
  const canRefund = usePermission(PERMISSIONS.flowRateRefund);
  const staff = useSession((s) => s.userInfo?.tenantKind === 'platform');
  const [refunding, setRefunding] = useState(false);
  const refund = useRefundOrder();
  const buys = usePermission(PERMISSIONS.flowRateBuy);
  const pay = usePayOrder();
  const cancel = useCancelOrder();
  const { language } = useLanguage();
  const [form] = Form.useForm<{ reason: string }>();
  useFormLanguage(form);

  const submitRefund = async () => {
    if (!o) return;
    let v: { reason: string };
    try {
      v = await form.validateFields();
    } catch {
      return;
    }
    try {
      await refund.mutateAsync({ id: o.id, reason: v.reason.trim() });
    } catch {
      return;
    }
    setRefunding(false);
    form.resetFields();
    message.success(t('order.detail.refunded'));
  };

  return (
    <Drawer
      open={id != null}
      size={720}
      onClose={onClose}
      title={o ? t('order.detail.title', { orderNo: o.orderNo }) : ''}
      loading={detail.isPending}
      extra={
        o && (
          <Flex gap={8}>
            <Button icon={<PrinterOutlined />} onClick={() => window.print()}>
              {t('order.detail.print')}
            </Button>
            {!staff && buys && o.state === 'pending' && (
              <>
                <Button
                  type="primary"
                  icon={<PayCircleOutlined />}
                  loading={pay.isPending}
                  onClick={() =>
                    void pay
                      .mutateAsync({ id: o.id, lang: language })
                      .then((p) => window.open(p.cashierUrl, '_blank', 'noopener'))
                      .catch(() => {})
                  }
                >
                  {t('order.detail.payNow')}
                </Button>
                <Button danger loading={cancel.isPending} onClick={() => void cancel.mutateAsync(o.id).catch(() => {})}>
                  {t('order.pay.cancelOrder')}
                </Button>
              </>
            )}
            {staff && canRefund && (o.state === 'paid' || o.state === 'fulfilled') && (
              <Button danger icon={<RollbackOutlined />} onClick={() => setRefunding(true)}>
                {t('order.detail.refund')}
              </Button>
            )}
          </Flex>
        )
      }
    >
      {o && <Receipt o={o} />}
      <Modal
        open={refunding}
        title={o ? t('order.detail.refundTitle', { orderNo: o.orderNo }) : ''}
        okText={t('order.detail.refundOk')}
        okButtonProps={{ danger: true }}
        cancelText={t('order.goods.form.cancel')}
        confirmLoading={refund.isPending}
        onOk={() => void submitRefund()}
        onCancel={() => setRefunding(false)}
        forceRender
      >
        <Typography.Paragraph type="secondary">{t('order.detail.refundHint')}</Typography.Paragraph>
        <Form form={form} name="orderRefund" layout="vertical">
          <Form.Item
            name="reason"
            label={t('order.detail.refundReasonLabel')}
            rules={[{ required: true, whitespace: true, message: t('order.goods.form.required') }]}
          >
            <Input.TextArea maxLength={200} showCount rows={3} />
          </Form.Item>
        </Form>
      </Modal>
    </Drawer>
  );
}

/** The receipt: the part of the drawer that prints (receipt.css hides the rest of the page). */
function Receipt({ o }: { o: OrderDetail }) {
  const { t } = useTranslation();
  const items = [
    { key: 'orderNo', label: t('order.detail.orderNo'), children: o.orderNo },
    { key: 'tenant', label: t('order.detail.tenant'), children: o.tenantName },
    { key: 'user', label: t('order.detail.user'), children: o.userName || '–' },
    {
      key: 'state',
      label: t('order.detail.state'),
      children: <Tag color={STATE_COLOR[o.state]}>{t(`order.state.${o.state}`)}</Tag>,
    },
    { key: 'total', label: t('order.detail.total'), children: <b>{formatFen(o.totalFen)}</b> },
    { key: 'createdAt', label: t('order.detail.createdAt'), children: when(o.createdAt) },
    {
      key: 'provider',
      label: t('order.detail.provider'),
      children: o.provider ? t(`order.detail.provider_${o.provider as 'sandbox' | 'alipay'}`) : '–',
    },
    { key: 'tradeNo', label: t('order.detail.tradeNo'), children: o.tradeNo ?? '–' },
    { key: 'paidAt', label: t('order.detail.paidAt'), children: when(o.paidAt) },
    { key: 'fulfilledAt', label: t('order.detail.fulfilledAt'), children: when(o.fulfilledAt) },
    ...(o.closedAt ? [{ key: 'closedAt', label: t('order.detail.closedAt'), children: when(o.closedAt) }] : []),
    ...(o.refundedAt
      ? [
          { key: 'refundedAt', label: t('order.detail.refundedAt'), children: when(o.refundedAt) },
          { key: 'refundReason', label: t('order.detail.refundReason'), children: o.refundReason ?? '–' },
          { key: 'refundedBy', label: t('order.detail.refundedBy'), children: o.refundedBy ?? '–' },
        ]
      : []),
  ];
  return (
    <div className="order-receipt" data-testid="order-receipt">
      <Typography.Title level={4} className="order-receipt-title">
        {t('order.detail.receipt')}
      </Typography.Title>
      <Descriptions size="small" bordered column={{ xs: 1, sm: 2 }} items={items} />
      <Typography.Title level={5} style={{ marginTop: 16 }}>
        {t('order.detail.lines')}
      </Typography.Title>
      <Table
        size="small"
        rowKey="id"
        pagination={false}
        dataSource={o.lines}
        scroll={{ x: 640 }}
        columns={[
          { key: 'iccid', dataIndex: 'iccid', title: t('order.detail.iccid'), width: 190 },
          {
            key: 'package',
            title: t('order.detail.package'),
            render: (_, l) =>
              `${l.packageName} (${formatMb(l.dataMb)} / ${t('order.goods.days', { n: l.validityDays })})`,
          },
          {
            key: 'price',
            dataIndex: 'priceFen',
            title: t('order.detail.price'),
            align: 'right',
            width: 90,
            render: (v: number) => formatFen(v),
          },
          {
            key: 'plan',
            title: t('order.detail.plan'),
            width: 150,
            render: (_, l) =>
              l.planAfter == null
                ? t('order.detail.notYet')
                : `${formatMb(l.planBefore ?? 0)} → ${formatMb(l.planAfter)}`,
          },
          {
            key: 'expires',
            title: t('order.detail.expires'),
            width: 150,
            render: (_, l) => (l.expiresAfter ? formatDateTime(l.expiresAfter) : t('order.detail.none')),
          },
        ]}
      />
    </div>
  );
}
