import { Card, Flex, Tabs, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { usePermission, useSession } from '@/lib/session';
import { ApiReference } from '../components/api-reference';
import { JobsPanel } from '../components/jobs-panel';
import { KeysPanel } from '../components/keys-panel';
import { TestPrintPanel } from '../components/test-print-panel';
import { WebhooksPanel } from '../components/webhooks-panel';

type Tab = 'keys' | 'jobs' | 'webhooks' | 'test' | 'docs';

/**
 * System integration (SPEC §2 `userKey`, DESIGN §6): the account's app keys with their request logs and usage,
 * its print jobs, webhook deliveries, a test print and the open API's reference. Users who may only view print
 * jobs see that tab alone.
 */
export default function IntegrationPage() {
  const { t } = useTranslation();
  const wholeAccount = useSession((s) => (s.userInfo?.dataScope ?? 'all') === 'all');
  const manage = usePermission(PERMISSIONS.integrationManage) && wholeAccount;
  const viewJobs = usePermission([PERMISSIONS.printView, PERMISSIONS.integrationManage]);
  const tabs: Tab[] = manage ? ['keys', 'jobs', 'webhooks', 'test', 'docs'] : viewJobs ? ['jobs'] : [];
  const [active, setActive] = useState<Tab>(tabs[0] ?? 'jobs');

  const panel = (tab: Tab) => {
    switch (tab) {
      case 'keys':
        return <KeysPanel />;
      case 'jobs':
        return <JobsPanel live={active === 'jobs'} canManage={manage} />;
      case 'webhooks':
        return <WebhooksPanel live={active === 'webhooks'} />;
      case 'test':
        return <TestPrintPanel />;
      case 'docs':
        return <ApiReference />;
    }
  };

  return (
    <Card variant="borderless">
      <Flex vertical gap={8}>
        <div>
          <Typography.Title level={4} style={{ margin: 0 }}>
            {t('integration.title')}
          </Typography.Title>
          <Typography.Text type="secondary">{t('integration.subtitle')}</Typography.Text>
        </div>
        <Tabs
          activeKey={active}
          onChange={(k) => setActive(k as Tab)}
          items={tabs.map((tab) => ({ key: tab, label: t(`integration.tab.${tab}`), children: panel(tab) }))}
        />
      </Flex>
    </Card>
  );
}
