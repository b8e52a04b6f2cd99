import { CloudUploadOutlined, DeploymentUnitOutlined } from '@ant-design/icons';
import { App, Button, Card, Empty, Flex, List, Modal, Table, Tabs, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { PackageItem } from '@cpc/contracts';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { formatSize } from '@/lib/format/size';
import { formatDateTime } from '@/lib/format/relative-time';
import { useLiveEvents } from '@/lib/live-events';
import { useInvalidatePackages, usePackageList } from '@/lib/packages';
import { usePermission } from '@/lib/session';
import { useDeployModel, useDeviceModels } from '../api/terminal';
import { DeviceSelect } from '../components/device-select';
import { ModelUploadDrawer } from '../components/model-upload';

const meta = (p: PackageItem, k: string) => (typeof p.meta[k] === 'string' ? (p.meta[k] as string) : '');

/**
 * Terminal AI (issue 15): the AI model packages of the account (name, version, framework, inputs and outputs,
 * size, the device models they fit), uploaded in chunks and deployed to devices through the application
 * section's deployments (kind 'model'); a device's installed models as it reported them.
 */
export default function AiTerminalPage() {
  const { t } = useTranslation();
  const canEdit = usePermission(PERMISSIONS.aiLibraryEdit);
  const [page, setPage] = useState(1);
  const [uploading, setUploading] = useState(false);
  const [deploying, setDeploying] = useState<PackageItem | null>(null);
  const models = usePackageList({ kind: 'model', pageNo: page, pageSize: 20 });
  const invalidate = useInvalidatePackages();
  useLiveEvents({ package: () => void invalidate() });

  return (
    <Card variant="borderless">
      <Flex vertical gap={16}>
        <Flex justify="space-between" wrap gap={8}>
          <div>
            <Typography.Title level={4} style={{ margin: 0 }}>
              {t('aiLibrary.terminal.title')}
            </Typography.Title>
            <Typography.Text type="secondary">{t('aiLibrary.terminal.subtitle')}</Typography.Text>
          </div>
          {canEdit && (
            <Button type="primary" icon={<CloudUploadOutlined />} onClick={() => setUploading(true)}>
              {t('aiLibrary.terminal.upload')}
            </Button>
          )}
        </Flex>
        <Tabs
          items={[
            {
              key: 'models',
              label: t('aiLibrary.terminal.tabModels'),
              children: (
                <Table<PackageItem>
                  rowKey="id"
                  loading={models.isLoading}
                  dataSource={models.data?.list ?? []}
                  scroll={{ x: 'max-content' }}
                  locale={{ emptyText: <Empty description={t('aiLibrary.terminal.empty')} /> }}
                  pagination={{
                    current: page,
                    pageSize: 20,
                    total: models.data?.total ?? 0,
                    onChange: setPage,
                    showSizeChanger: false,
                  }}
                  columns={[
                    { title: t('aiLibrary.terminal.name'), dataIndex: 'name' },
                    { title: t('aiLibrary.terminal.version'), dataIndex: 'versionName' },
                    {
                      title: t('aiLibrary.terminal.framework'),
                      render: (_, p) => <Tag>{meta(p, 'framework').toUpperCase() || '—'}</Tag>,
                    },
                    {
                      title: t('aiLibrary.terminal.io'),
                      render: (_, p) => (
                        <Typography.Text style={{ fontSize: 12 }}>
                          {meta(p, 'inputs') || '—'} → {meta(p, 'outputs') || '—'}
                        </Typography.Text>
                      ),
                    },
                    { title: t('aiLibrary.terminal.size'), render: (_, p) => formatSize(p.size) },
                    {
                      title: t('aiLibrary.terminal.fits'),
                      render: (_, p) =>
                        p.models.length
                          ? p.models.map((m) => <Tag key={m}>{m}</Tag>)
                          : t('aiLibrary.terminal.anyModel'),
                    },
                    { title: t('aiLibrary.terminal.created'), render: (_, p) => formatDateTime(p.createdAt) },
                    ...(canEdit
                      ? [
                          {
                            title: t('aiLibrary.terminal.actions'),
                            render: (_: unknown, p: PackageItem) => (
                              <Button size="small" icon={<DeploymentUnitOutlined />} onClick={() => setDeploying(p)}>
                                {t('aiLibrary.terminal.deploy')}
                              </Button>
                            ),
                          },
                        ]
                      : []),
                  ]}
                />
              ),
            },
            { key: 'devices', label: t('aiLibrary.terminal.tabDevices'), children: <DeviceModelsPanel /> },
          ]}
        />
      </Flex>
      <ModelUploadDrawer open={uploading} onClose={() => setUploading(false)} />
      <DeployModal model={deploying} onClose={() => setDeploying(null)} />
    </Card>
  );
}

/** Deploys a model to chosen devices (an application deployment of kind 'model'). */
function DeployModal({ model, onClose }: { model: PackageItem | null; onClose: () => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [deviceId, setDeviceId] = useState<number | undefined>();
  const deploy = useDeployModel();
  const ok = async () => {
    if (!model || !deviceId) return;
    try {
      const r = await deploy.mutateAsync({ packageId: model.id, deviceIds: [deviceId], groupIds: [] });
      message.success(t('aiLibrary.terminal.deployed', { n: r.devices }));
      onClose();
    } catch (err) {
      message.error(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <Modal
      open={!!model}
      title={t('aiLibrary.terminal.deployTitle', { name: model?.name ?? '', version: model?.versionName ?? '' })}
      onCancel={onClose}
      onOk={ok}
      okButtonProps={{ disabled: !deviceId, loading: deploy.isPending }}
      destroyOnHidden
    >
      <DeviceSelect value={deviceId} onChange={setDeviceId} style={{ width: '100%' }} />
    </Modal>
  );
}

/** A device's installed models, as it last reported them. */
function DeviceModelsPanel() {
  const { t } = useTranslation();
  const [deviceId, setDeviceId] = useState<number | undefined>();
  const inventory = useDeviceModels(deviceId);
  return (
    <Flex vertical gap={12}>
      <DeviceSelect value={deviceId} onChange={setDeviceId} style={{ maxWidth: 360, width: '100%' }} />
      {deviceId !== undefined && (
        <List
          bordered
          loading={inventory.isLoading}
          dataSource={inventory.data?.models ?? []}
          locale={{ emptyText: <Empty description={t('aiLibrary.terminal.noModels')} /> }}
          header={
            inventory.data?.reportedAt
              ? t('aiLibrary.terminal.reportedAt', { at: formatDateTime(inventory.data.reportedAt) })
              : undefined
          }
          renderItem={(m) => (
            <List.Item>
              <Typography.Text strong>{m.name}</Typography.Text>
              <span>
                <Tag>{m.framework.toUpperCase()}</Tag>
                {m.version}
              </span>
            </List.Item>
          )}
        />
      )}
    </Flex>
  );
}
