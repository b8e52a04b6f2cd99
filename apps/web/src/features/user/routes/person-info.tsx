import { Button, Card, Col, Result, Row, Skeleton, Tabs, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useProfile } from '../api/profile';
import { LinkedAccounts } from '../components/linked-accounts';
import { PasswordForm } from '../components/password-form';
import { ProfileCard } from '../components/profile-card';
import { ProfileForm } from '../components/profile-form';
import { SessionList } from '../components/session-list';

const TABS = ['profile', 'password', 'sessions'] as const;
type TabKey = (typeof TABS)[number];

/**
 * The personal centre (SPEC §2: /person/info, and /setting/personalCenter from the avatar dropdown):
 * who the user is on the left, what they can change on the right. `?tab=` opens a tab directly.
 */
export default function PersonInfoPage() {
  const { t } = useTranslation();
  const profile = useProfile();
  const [params, setParams] = useSearchParams();
  const asked = params.get('tab');
  const tab: TabKey = TABS.includes(asked as TabKey) ? (asked as TabKey) : 'profile';

  if (profile.isError && !profile.data) {
    return (
      <Card variant="borderless">
        <Result
          status="warning"
          title={t('user.profile.loadFailed')}
          extra={
            <Button type="primary" onClick={() => void profile.refetch()}>
              {t('user.profile.retry')}
            </Button>
          }
        />
      </Card>
    );
  }

  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} lg={9} xl={8} xxl={7}>
        {profile.data ? (
          <ProfileCard profile={profile.data} />
        ) : (
          <Card variant="borderless">
            <Skeleton avatar active paragraph={{ rows: 6 }} />
          </Card>
        )}
      </Col>
      <Col xs={24} lg={15} xl={16} xxl={17}>
        <Card variant="borderless" style={{ height: '100%' }}>
          <Typography.Title level={4} style={{ margin: 0 }}>
            {t('user.info.title')}
          </Typography.Title>
          <Typography.Text type="secondary">{t('user.info.subtitle')}</Typography.Text>
          <Tabs
            activeKey={tab}
            onChange={(key) => setParams((p) => ({ ...Object.fromEntries(p), tab: key }), { replace: true })}
            style={{ marginTop: 8 }}
            items={[
              {
                key: 'profile',
                label: t('user.tabs.profile'),
                children: profile.data ? <ProfileForm profile={profile.data} /> : <Skeleton active />,
              },
              { key: 'password', label: t('user.tabs.password'), children: <PasswordForm /> },
              { key: 'sessions', label: t('user.tabs.sessions'), children: <SessionList /> },
            ]}
          />
        </Card>
      </Col>
      <Col span={24}>
        <LinkedAccounts />
      </Col>
    </Row>
  );
}
