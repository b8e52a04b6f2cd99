import { RightOutlined } from '@ant-design/icons';
import { Col, Flex, List, Row, Typography } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { SIM_STATES } from '@cpc/contracts/device-constants';
import type { PlanWidget } from '@cpc/contracts/dashboard';
import { Chart, type ChartTheme } from '@/lib/charts/chart';
import { formatDateTime } from '@/lib/format/relative-time';
import { WidgetCard } from './widget-card';

const SEARCH = '/flowRate/flowRateSearch';

/** The "plan" widget (issue 13): the account's SIMs by state as a donut, and the plans expiring within 7 days. */
export function PlanCard({
  plan,
  loading,
  chart,
}: {
  plan: PlanWidget | undefined;
  loading: boolean;
  chart: ChartTheme;
}) {
  const { t } = useTranslation();
  const colors = useMemo(
    () => ({
      active: chart.tokens.colorSuccess,
      low: chart.tokens.colorWarning,
      exhausted: chart.tokens.colorError,
      expired: chart.tokens.colorTextTertiary,
      suspended: chart.tokens.purple,
    }),
    [chart.tokens],
  );
  const option = useMemo(
    () => ({
      tooltip: { trigger: 'item', formatter: '{b}: {c} ({d}%)' },
      legend: { type: 'scroll', orient: 'horizontal', bottom: 0 },
      series: [
        {
          type: 'pie',
          radius: ['45%', '70%'],
          center: ['50%', '44%'],
          itemStyle: { borderColor: chart.tokens.colorBgContainer, borderWidth: 2 },
          label: { show: true, position: 'inside', formatter: '{c}', color: '#fff', fontWeight: 600 },
          labelLine: { show: false },
          data: SIM_STATES.filter((s) => (plan?.byState[s] ?? 0) > 0).map((s) => ({
            name: t(`dashboard.plan.state.${s}`),
            value: plan?.byState[s] ?? 0,
            itemStyle: { color: colors[s] },
          })),
        },
      ],
    }),
    [plan, t, chart.tokens, colors],
  );
  return (
    <WidgetCard
      testId="widget-plan"
      loading={loading}
      title={t('dashboard.plan.title')}
      extra={
        <Link to={SEARCH} data-testid="plan-all">
          {t('dashboard.plan.all')} <RightOutlined />
        </Link>
      }
      empty={plan && plan.total === 0 ? t('dashboard.plan.empty') : undefined}
    >
      <Row gutter={[16, 16]}>
        <Col xs={24} md={10}>
          <Typography.Text type="secondary">{t('dashboard.plan.total', { n: plan?.total ?? 0 })}</Typography.Text>
          <Chart option={option} height={240} aria-label={t('dashboard.plan.title')} />
        </Col>
        <Col xs={24} md={14}>
          <Flex vertical gap={8}>
            <Link
              to={`${SEARCH}?expiringDays=7&sort=expiry`}
              data-testid="plan-expiring"
              data-count={plan?.expiring.count ?? 0}
            >
              <Typography.Text strong>{t('dashboard.plan.expiring', { n: plan?.expiring.count ?? 0 })}</Typography.Text>
            </Link>
            <List
              size="small"
              dataSource={plan?.expiring.sims ?? []}
              locale={{ emptyText: t('dashboard.plan.noExpiring') }}
              renderItem={(s) => (
                <List.Item key={s.iccid}>
                  <Flex vertical style={{ minWidth: 0 }}>
                    <Typography.Text ellipsis>{s.deviceName || s.deviceSn || s.iccid}</Typography.Text>
                    <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                      {s.iccid} · {t('dashboard.plan.left', { mb: `${s.leftMb} MB` })}
                    </Typography.Text>
                  </Flex>
                  <Typography.Text type="warning">{formatDateTime(s.expiresAt)}</Typography.Text>
                </List.Item>
              )}
            />
          </Flex>
        </Col>
      </Row>
    </WidgetCard>
  );
}
