import { ImportOutlined, PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { App, Button, Card, Flex, Input, Segmented, Select, Tooltip, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { RegisteredDevice, RegistryItem } from '@cpc/contracts/device-registry';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { usePermission } from '@/lib/session';
import { useModelOptions, useRegistryList, useReissueBindKey } from '../api/registry';
import { ImportModal } from '../components/import-modal';
import { KeysModal } from '../components/keys-modal';
import { RegisterModal } from '../components/register-modal';
import { RegistryTable } from '../components/registry-table';

type BoundFilter = 'all' | 'true' | 'false';

/** Factory registration (staff): every device made, one registered by hand or many from a CSV. */
export default function DeviceRegistryPage() {
  const { t } = useTranslation();
  const { message, modal } = App.useApp();
  // the catalogue is read through the customers' options call, which needs device:view
  const canReadModels = usePermission(PERMISSIONS.deviceView);
  const models = useModelOptions(canReadModels);
  const [bound, setBound] = useState<BoundFilter>('all');
  const [modelId, setModelId] = useState<number | undefined>();
  const [keyword, setKeyword] = useState('');
  const [page, setPage] = useState({ pageNo: 1, pageSize: 20 });
  const [dialog, setDialog] = useState<'register' | 'import' | null>(null);
  const [registered, setRegistered] = useState<RegisteredDevice[] | null>(null);

  const list = useRegistryList({
    ...page,
    bound: bound === 'all' ? undefined : bound,
    modelId,
    keyword: keyword || undefined,
  });
  const toFirstPage = () => setPage((p) => ({ ...p, pageNo: 1 }));

  const reissue = useReissueBindKey();
  const confirmReissue = (item: RegistryItem) =>
    modal.confirm({
      title: t('deviceRegistry.reissue.title', { sn: item.sn }),
      content: t('deviceRegistry.reissue.content'),
      okText: t('deviceRegistry.reissue.ok'),
      cancelText: t('deviceRegistry.reissue.cancel'),
      onOk: async () => {
        const r = await reissue.mutateAsync(item.id).catch(() => null);
        if (!r) return;
        // shown this once: only its hash is kept
        modal.success({
          title: t('deviceRegistry.reissue.doneTitle', { sn: r.sn }),
          content: (
            <Flex vertical gap={8} data-testid="reissued-key">
              <Typography.Text type="secondary">{t('deviceRegistry.reissue.doneNote')}</Typography.Text>
              <Typography.Text code copyable={{ text: r.bindKey }} style={{ fontSize: 16 }}>
                {r.bindKey}
              </Typography.Text>
            </Flex>
          ),
          okText: t('deviceRegistry.reissue.close'),
          maskClosable: false,
          keyboard: false,
        });
      },
    });

  const done = (devices: RegisteredDevice[]) => {
    setDialog(null);
    setRegistered(devices);
    message.success(t('deviceRegistry.registered', { n: devices.length }));
  };

  return (
    <Card variant="borderless">
      <Flex vertical gap={16}>
        <Flex justify="space-between" align="flex-start" gap={12} wrap>
          <div>
            <Typography.Title level={4} style={{ margin: 0 }}>
              {t('deviceRegistry.title')}
            </Typography.Title>
            <Typography.Text type="secondary">{t('deviceRegistry.subtitle')}</Typography.Text>
          </div>
          <Flex gap={8} wrap>
            <Button icon={<ImportOutlined />} onClick={() => setDialog('import')}>
              {t('deviceRegistry.action.import')}
            </Button>
            <Button type="primary" icon={<PlusOutlined />} onClick={() => setDialog('register')}>
              {t('deviceRegistry.action.register')}
            </Button>
          </Flex>
        </Flex>
        <Flex gap={12} wrap align="center">
          <Segmented<BoundFilter>
            aria-label={t('deviceRegistry.filter.bound')}
            value={bound}
            onChange={(v) => {
              setBound(v);
              toFirstPage();
            }}
            options={[
              { value: 'all', label: t('deviceRegistry.filter.all') },
              { value: 'true', label: t('deviceRegistry.bound.true') },
              { value: 'false', label: t('deviceRegistry.bound.false') },
            ]}
          />
          {canReadModels && (
            <Select<number>
              allowClear
              showSearch={{ optionFilterProp: 'label' }}
              style={{ width: 220, maxWidth: '100%' }}
              aria-label={t('deviceRegistry.filter.model')}
              placeholder={t('deviceRegistry.filter.model')}
              loading={models.isPending}
              value={modelId}
              onChange={(v) => {
                setModelId(v);
                toFirstPage();
              }}
              options={(models.data ?? []).map((m) => ({ value: m.id, label: `${m.code} · ${m.name}` }))}
            />
          )}
          <Flex gap={8} style={{ flex: '1 1 240px', maxWidth: 420, marginInlineStart: 'auto' }}>
            <Input.Search
              allowClear
              maxLength={50}
              placeholder={t('deviceRegistry.filter.keyword')}
              onSearch={(v) => {
                setKeyword(v.trim());
                toFirstPage();
              }}
            />
            <Tooltip title={t('deviceRegistry.filter.refresh')}>
              <Button
                icon={<ReloadOutlined />}
                aria-label={t('deviceRegistry.filter.refresh')}
                loading={list.isFetching && !list.isPending}
                onClick={() => void list.refetch()}
              />
            </Tooltip>
          </Flex>
        </Flex>
        <RegistryTable
          onReissue={confirmReissue}
          data={list.data?.list ?? []}
          total={list.data?.total ?? 0}
          pageNo={page.pageNo}
          pageSize={page.pageSize}
          loading={list.isFetching}
          onPageChange={(pageNo, pageSize) => setPage({ pageNo: pageSize === page.pageSize ? pageNo : 1, pageSize })}
        />
      </Flex>
      <RegisterModal
        open={dialog === 'register'}
        models={models.data ?? []}
        onClose={() => setDialog(null)}
        onRegistered={done}
      />
      <ImportModal open={dialog === 'import'} onClose={() => setDialog(null)} onImported={done} />
      <KeysModal devices={registered} onClose={() => setRegistered(null)} />
    </Card>
  );
}
