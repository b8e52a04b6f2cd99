import { Card, Flex, Tabs, Typography } from 'antd';
import { PERMISSIONS } from '@cpc/contracts';
import { useTranslation } from 'react-i18next';
import { usePermission } from '@/lib/session';
import { useLiveNotices } from '../api/notice';
import { ManagePanel } from '../components/manage-panel';
import { NoticeList } from '../components/notice-list';

/**
 * `/notice/noticeIndex`: the announcements the user may read (customers: of their audience; staff: all live ones).
 * Staff who hold notice:edit also manage them here, on a second tab.
 */
export default function NoticeIndexPage() {
  const { t } = useTranslation();
  const canManage = usePermission(PERMISSIONS.noticeEdit);
  useLiveNotices();
  const header = (subtitle: string) => (
    <div>
      <Typography.Title level={4} style={{ margin: 0 }}>
        {t('notice.title')}
      </Typography.Title>
      <Typography.Text type="secondary">{subtitle}</Typography.Text>
    </div>
  );
  return (
    <Card variant="borderless">
      {canManage ? (
        <Flex vertical gap={8}>
          {header(t('notice.manageSubtitle'))}
          <Tabs
            defaultActiveKey="manage"
            items={[
              { key: 'manage', label: t('notice.tabs.manage'), children: <ManagePanel /> },
              { key: 'read', label: t('notice.tabs.read'), children: <NoticeList /> },
            ]}
          />
        </Flex>
      ) : (
        <Flex vertical gap={16}>
          {header(t('notice.subtitle'))}
          <NoticeList />
        </Flex>
      )}
    </Card>
  );
}
