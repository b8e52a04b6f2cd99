import { Card, Col, Row, Statistic, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { SimSummary } from '@cpc/contracts/flow-rate';
import { formatMbValue } from '../utils/filter';

/** The account's totals: SIMs (and those needing attention), this month's use, its projection, expiring soon. */
export function SummaryCards({ summary, loading }: { summary: SimSummary | undefined; loading: boolean }) {
  const { t } = useTranslation();
  const s = summary;
  const attention = s ? s.byState.low + s.byState.exhausted + s.byState.expired : 0;
  const cards = [
    {
      key: 'total',
      title: t('flowRate.summary.total'),
      value: s?.total ?? 0,
      extra: s ? `${t('flowRate.summary.attention')} ${attention}` : '',
    },
    { key: 'usedMonth', title: t('flowRate.summary.usedMonth'), value: formatMbValue(s?.usedMonthMb ?? 0) },
    {
      key: 'projected',
      title: (
        <Tooltip title={t('flowRate.summary.projectedHint')}>
          <span>{t('flowRate.summary.projected')}</span>
        </Tooltip>
      ),
      value: formatMbValue(s?.projectedMonthMb ?? 0),
    },
    { key: 'expiring', title: t('flowRate.summary.expiringSoon'), value: s?.expiringSoon ?? 0 },
  ];
  return (
    <Row gutter={[12, 12]} data-testid="sim-summary">
      {cards.map((c) => (
        <Col key={c.key} xs={12} md={6}>
          <Card size="small" loading={loading && !s} data-testid={`sim-summary-${c.key}`}>
            <Statistic title={c.title} value={c.value} />
            {c.extra ? <Typography.Text type="secondary">{c.extra}</Typography.Text> : null}
          </Card>
        </Col>
      ))}
    </Row>
  );
}
