import { Flex, List, Statistic, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { OrderState, OrderWidget } from '@cpc/contracts/order';
import { formatFen } from '@/lib/format/money';
import { formatDateTime } from '@/lib/format/relative-time';
import { WidgetCard } from './widget-card';

const COLOR: Record<OrderState, string> = {
  pending: 'gold',
  paid: 'blue',
  fulfilled: 'green',
  canceled: 'default',
  closed: 'default',
  refunded: 'purple',
};

/** SPEC §2's "order" widget: this month's spend and the latest orders, linking to the top-up records. */
export function OrderCard({ orders, loading }: { orders: OrderWidget | null | undefined; loading: boolean }) {
  const { t } = useTranslation();
  return (
    <WidgetCard
      testId="widget-order"
      title={t('dashboard.order.title')}
      loading={loading && !orders}
      extra={<Link to="/flowRate/flowRateLog">{t('dashboard.order.more')}</Link>}
    >
      {orders && (
        <Flex vertical gap={12}>
          <Flex gap={24} wrap>
            <Statistic
              title={t('dashboard.order.monthSpend')}
              value={formatFen(orders.monthSpendFen)}
              data-testid="order-month-spend"
            />
            <Statistic title={t('dashboard.order.monthOrdersTitle')} value={orders.monthOrders} />
          </Flex>
          <Typography.Text type="secondary">{t('dashboard.order.recent')}</Typography.Text>
          <List
            size="small"
            dataSource={orders.recent}
            locale={{ emptyText: t('dashboard.order.empty') }}
            renderItem={(o) => (
              <List.Item
                extra={
                  <Typography.Text strong style={{ whiteSpace: 'nowrap' }}>
                    {formatFen(o.totalFen)}
                  </Typography.Text>
                }
                style={{ paddingInline: 0 }}
              >
                <Flex vertical gap={2} style={{ minWidth: 0 }}>
                  <Flex gap={8} align="center" wrap>
                    <Typography.Text ellipsis style={{ maxWidth: 200 }}>
                      {o.orderNo}
                    </Typography.Text>
                    <Tag color={COLOR[o.state]} style={{ marginInlineEnd: 0 }}>
                      {t(`dashboard.order.state.${o.state}`)}
                    </Tag>
                  </Flex>
                  <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                    {formatDateTime(o.createdAt)} · {t('dashboard.order.lines', { n: o.lineCount })}
                  </Typography.Text>
                </Flex>
              </List.Item>
            )}
          />
        </Flex>
      )}
    </WidgetCard>
  );
}
