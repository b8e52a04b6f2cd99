import { Card, Flex, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { usePermission } from '@/lib/session';
import { usePushes } from '../api/push';
import { ComposeForm } from '../components/compose-form';
import { DeliveriesDrawer } from '../components/deliveries-drawer';
import { usePushLive } from '../components/live';
import { PushTable } from '../components/push-table';

/** Push tasks: compose and send (or schedule) a push, and the account's pushes with their progress, live. */
export default function PushTask() {
  const { t } = useTranslation();
  usePushLive();
  const canEdit = usePermission(PERMISSIONS.pushEdit);
  const [page, setPage] = useState({ pageNo: 1, pageSize: 10 });
  const [open, setOpen] = useState<number | null>(null);
  const list = usePushes(page);

  return (
    <Flex vertical gap={16}>
      {canEdit && (
        <Card variant="borderless">
          <Typography.Title level={4} style={{ marginTop: 0 }}>
            {t('push.task.title')}
          </Typography.Title>
          <Typography.Paragraph type="secondary">{t('push.task.subtitle')}</Typography.Paragraph>
          <ComposeForm onSent={(id) => setOpen(id)} />
        </Card>
      )}
      <Card variant="borderless" title={t('push.task.recent')}>
        <PushTable
          data={list.data}
          loading={list.isLoading}
          page={page}
          onPage={(pageNo, pageSize) => setPage({ pageNo, pageSize })}
          onOpen={setOpen}
          canEdit={canEdit}
        />
      </Card>
      <DeliveriesDrawer id={open} onClose={() => setOpen(null)} canEdit={canEdit} />
    </Flex>
  );
}
