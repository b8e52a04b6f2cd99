import { ReloadOutlined } from '@ant-design/icons';
import { Button, Card, Col, Empty, Flex, Result, Row, Tooltip, Typography } from 'antd';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useSession } from '@/lib/session';
import { useDashboardOverview } from '../api/dashboard';
import { useChartTheme } from '@/lib/charts/chart';
import { ChinaMap } from '../components/china-map';
import { DeviceRanking } from '../components/device-ranking';
import { GroupRanking } from '../components/group-ranking';
import { InstallChart } from '../components/install-chart';
import { PlanCard } from '../components/plan-card';
import { RemindCard } from '../components/remind-card';
import { TopCards } from '../components/top-cards';
import { TrendChart } from '../components/trend-chart';
import { VersionChart } from '../components/version-chart';
import { OrderCard } from '../components/order-card';
import { ProjectCard } from '../components/project-card';
import { TargetCard } from '../components/target-card';
import { isEmptyFleet } from '../utils/dashboard-data';

/** The home tab (SPEC §2): the account's fleet at a glance, refreshed every 30 s. */
export default function HomePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const username = useSession((s) => s.username);
  const overview = useDashboardOverview();
  const chart = useChartTheme();
  const data = overview.data;
  const loading = overview.isPending;

  const widgets = () => {
    if (overview.isError && !data) {
      return (
        <Card variant="borderless">
          <Result
            status="warning"
            title={t('dashboard.loadFailed')}
            extra={
              <Button type="primary" onClick={() => void overview.refetch()}>
                {t('dashboard.retry')}
              </Button>
            }
          />
        </Card>
      );
    }
    if (data && isEmptyFleet(data)) {
      return (
        <Card variant="borderless" data-testid="dashboard-empty">
          <Empty
            image={Empty.PRESENTED_IMAGE_SIMPLE}
            style={{ margin: '48px 0' }}
            description={
              <Flex vertical gap={4}>
                <Typography.Text strong>{t('dashboard.empty.title')}</Typography.Text>
                <Typography.Text type="secondary">{t('dashboard.empty.description')}</Typography.Text>
              </Flex>
            }
          >
            <Button type="primary" onClick={() => navigate('/device/index?bind=1')}>
              {t('dashboard.empty.bind')}
            </Button>
          </Empty>
        </Card>
      );
    }
    return (
      <>
        <Row gutter={[16, 16]}>
          <Col xs={24} xl={16}>
            <ChinaMap provinces={data?.provinces} loading={loading} chart={chart} />
          </Col>
          <Col xs={24} xl={8}>
            <RemindCard remind={data?.remind} loading={loading} />
          </Col>
        </Row>
        <Row gutter={[16, 16]}>
          <Col xs={24} xl={16}>
            <TrendChart daily={data?.trend} loading={loading} />
          </Col>
          <Col xs={24} xl={8}>
            <VersionChart versions={data?.versions} loading={loading} chart={chart} />
          </Col>
        </Row>
        <Row gutter={[16, 16]}>
          <Col xs={24} md={12} xl={8}>
            <DeviceRanking ranking={data?.deviceRanking} loading={loading} chart={chart} />
          </Col>
          <Col xs={24} md={12} xl={8}>
            <GroupRanking groups={data?.groupRanking} loading={loading} chart={chart} />
          </Col>
          <Col xs={24} xl={8}>
            <InstallChart installs={data?.installs} loading={loading} chart={chart} />
          </Col>
        </Row>
        <Row gutter={[16, 16]}>
          <Col xs={24} xl={data?.orders ? 16 : 24}>
            <PlanCard plan={data?.plan} loading={loading} chart={chart} />
          </Col>
          {data?.orders && (
            <Col xs={24} xl={8}>
              <OrderCard orders={data.orders} loading={loading} />
            </Col>
          )}
        </Row>
        <Row gutter={[16, 16]}>
          {data?.target && (
            <Col xs={24} md={12} xl={8}>
              <TargetCard target={data.target} loading={loading} />
            </Col>
          )}
          <Col xs={24} md={data?.target ? 12 : 24} xl={data?.target ? 16 : 24}>
            <ProjectCard projects={data?.projects} loading={loading} />
          </Col>
        </Row>
      </>
    );
  };

  return (
    <Flex vertical gap={16} data-testid="dashboard">
      <Card variant="borderless" styles={{ body: { padding: '16px 20px' } }}>
        <Flex justify="space-between" align="center" gap={12} wrap>
          <div>
            <Typography.Title level={4} style={{ margin: 0 }}>
              {t('dashboard.welcome', { name: username })}
            </Typography.Title>
            <Typography.Text type="secondary">{t('dashboard.subtitle')}</Typography.Text>
          </div>
          <Flex align="center" gap={8}>
            {overview.dataUpdatedAt > 0 && (
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {t('dashboard.updatedAt', { time: dayjs(overview.dataUpdatedAt).format('HH:mm:ss') })}
              </Typography.Text>
            )}
            <Tooltip title={t('dashboard.autoRefresh')}>
              <Button
                icon={<ReloadOutlined />}
                aria-label={t('dashboard.refresh')}
                loading={overview.isFetching}
                onClick={() => void overview.refetch()}
              />
            </Tooltip>
          </Flex>
        </Flex>
      </Card>
      <TopCards cards={data?.cards} loading={loading} />
      {widgets()}
    </Flex>
  );
}
