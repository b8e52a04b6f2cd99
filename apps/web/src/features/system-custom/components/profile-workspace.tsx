import { Alert, Card, Col, Empty, Flex, Row, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useProfile } from '../api/system-custom';
import { PAGE_PARTS, profileIdOf, type CustomPage } from '../utils/pages';
import { useSystemCustomLive } from './live';
import { ProfileHeader } from './profile-header';
import { ProfileList } from './profile-list';
import { ProfileTabs } from './profile-tabs';
import { PartEditor } from './part-editor';

/**
 * The frame all six customization pages share: the resolution rule, the customer's profiles on the left (create,
 * pick), and for the chosen one its header (rename, publish, delete), this page's part as the editor, then its
 * devices with their apply state and drift, its assignments and its versions. The chosen profile is in the URL
 * (`?profile=`), so moving between the six pages keeps it.
 */
export function ProfileWorkspace({ page }: { page: CustomPage }) {
  const { t } = useTranslation();
  useSystemCustomLive();
  const part = PAGE_PARTS[page];
  const [search, setSearch] = useSearchParams();
  const id = profileIdOf(search.get('profile'));
  const profile = useProfile(id || null);
  const select = (next: number | null) =>
    setSearch(
      (prev) => {
        const p = new URLSearchParams(prev);
        if (next) p.set('profile', String(next));
        else p.delete('profile');
        return p;
      },
      { replace: true },
    );

  return (
    <Flex vertical gap={16} data-testid="system-custom" data-page={page}>
      <Card variant="borderless">
        <Flex vertical gap={12}>
          <div>
            <Typography.Title level={4} style={{ margin: 0 }}>
              {t(`route.${page}`)}
            </Typography.Title>
            <Typography.Text type="secondary">{t(`systemCustom.page.${page}`)}</Typography.Text>
          </div>
          <Alert
            type="info"
            showIcon
            data-testid="resolution-rule"
            title={t('systemCustom.rule.title')}
            description={t('systemCustom.rule.text')}
          />
        </Flex>
      </Card>
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={8} xxl={6}>
          <ProfileList part={part} selected={id} onSelect={select} />
        </Col>
        <Col xs={24} lg={16} xxl={18}>
          {!id || profile.isError ? (
            <Card variant="borderless">
              <Empty
                description={id ? t('systemCustom.notFound') : t('systemCustom.pick')}
                data-testid="profile-none"
              />
            </Card>
          ) : !profile.data ? (
            <Card variant="borderless" loading />
          ) : (
            <Flex vertical gap={16} data-testid="profile-panel" data-profile-id={profile.data.id}>
              <ProfileHeader profile={profile.data} page={page} onDeleted={() => select(null)} />
              <PartEditor profile={profile.data} part={part} />
              <ProfileTabs profile={profile.data} />
            </Flex>
          )}
        </Col>
      </Row>
    </Flex>
  );
}
