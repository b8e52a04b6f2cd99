import { DashboardOutlined } from '@ant-design/icons';
import { Button, Card, Empty, Flex, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useSession } from '../../../lib/session';

/** The home tab. Its widgets (SPEC §2) need device data, so for now it says where they will appear. */
export default function HomePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const username = useSession((s) => s.username);

  return (
    <Flex vertical gap={16}>
      <Card variant="borderless">
        <Typography.Title level={4} style={{ margin: 0 }}>
          {t('home.welcome', { name: username })}
        </Typography.Title>
        <Typography.Text type="secondary">{t('home.subtitle')}</Typography.Text>
      </Card>
      <Card
        variant="borderless"
        title={
          <Flex gap={8} align="center">
            <DashboardOutlined />
            {t('home.widgets.title')}
          </Flex>
        }
      >
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('home.widgets.pending')}>
          <Button type="primary" onClick={() => navigate('/device')}>
            {t('home.widgets.toDevices')}
          </Button>
        </Empty>
      </Card>
    </Flex>
  );
}
