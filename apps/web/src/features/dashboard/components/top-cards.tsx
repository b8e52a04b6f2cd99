import { CloudServerOutlined, DatabaseOutlined, PrinterOutlined, ScheduleOutlined } from '@ant-design/icons';
import { Card, Col, Flex, Row, Statistic, Typography, theme } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { TopCards as TopCardsData } from '@cpc/contracts/dashboard';
import { formatMb, onlineRate } from '../utils/dashboard-data';

interface CardSpec {
  key: 'devices' | 'online' | 'tasksToday' | 'dataMonth';
  icon: ReactNode;
  color: string;
  value: number | string;
  hint: string;
}

/** The four figures at the top (SPEC §2 "top card"). */
export function TopCards({ cards, loading }: { cards: TopCardsData | undefined; loading: boolean }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const c = cards ?? { devices: 0, online: 0, tasksToday: 0, dataUsedMonthMb: 0 };
  const specs: CardSpec[] = [
    {
      key: 'devices',
      icon: <PrinterOutlined />,
      color: token.colorPrimary,
      value: c.devices,
      hint: t('dashboard.cards.devicesHint', { online: c.online, offline: c.devices - c.online }),
    },
    {
      key: 'online',
      icon: <CloudServerOutlined />,
      color: token.colorSuccess,
      value: c.online,
      hint: t('dashboard.cards.onlineHint', { rate: onlineRate(c) }),
    },
    {
      key: 'tasksToday',
      icon: <ScheduleOutlined />,
      color: token.colorWarning,
      value: c.tasksToday,
      hint: t('dashboard.cards.tasksTodayHint'),
    },
    {
      key: 'dataMonth',
      icon: <DatabaseOutlined />,
      color: token.purple,
      value: formatMb(c.dataUsedMonthMb),
      hint: t('dashboard.cards.dataMonthHint'),
    },
  ];
  return (
    <Row gutter={[16, 16]}>
      {specs.map((s) => (
        <Col key={s.key} xs={24} sm={12} xl={6}>
          <Card variant="borderless" loading={loading} data-testid={`card-${s.key}`} styles={{ body: { padding: 20 } }}>
            <Flex justify="space-between" align="flex-start" gap={12}>
              <Statistic
                title={t(`dashboard.cards.${s.key}`)}
                value={s.value}
                styles={{ content: { fontWeight: 600 } }}
              />
              <Flex
                align="center"
                justify="center"
                style={{
                  width: 44,
                  height: 44,
                  flex: 'none',
                  borderRadius: token.borderRadiusLG,
                  fontSize: 22,
                  color: s.color,
                  background: `color-mix(in srgb, ${s.color} 14%, transparent)`,
                }}
              >
                {s.icon}
              </Flex>
            </Flex>
            <Typography.Text type="secondary" style={{ fontSize: token.fontSizeSM }}>
              {s.hint}
            </Typography.Text>
          </Card>
        </Col>
      ))}
    </Row>
  );
}
