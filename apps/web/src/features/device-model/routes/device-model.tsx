import { PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { App, Button, Card, Flex, Input, Segmented, Tooltip, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ModelKind } from '@cpc/contracts/device';
import type { DeviceModelView } from '@cpc/contracts/device-model';
import { MODEL_KINDS } from '@cpc/contracts/device-constants';
import { useDeleteModel, useModelList } from '../api/device-model';
import { ModelModal } from '../components/model-modal';
import { ModelTable } from '../components/model-table';
import { errorText } from '../utils/rules';

type KindFilter = ModelKind | 'all';

/** The platform's device model catalogue (staff, DESIGN §4): list, create, edit, delete an unused model. */
export default function DeviceModelPage() {
  const { t } = useTranslation();
  const { message, modal } = App.useApp();
  const [kind, setKind] = useState<KindFilter>('all');
  const [keyword, setKeyword] = useState('');
  const [page, setPage] = useState({ pageNo: 1, pageSize: 20 });
  const [editing, setEditing] = useState<DeviceModelView | null>(null);
  const [formOpen, setFormOpen] = useState(false);

  const list = useModelList({ ...page, kind: kind === 'all' ? undefined : kind, keyword: keyword || undefined });
  const remove = useDeleteModel();

  const openForm = (record: DeviceModelView | null) => {
    setEditing(record);
    setFormOpen(true);
  };

  const confirmDelete = (record: DeviceModelView) => {
    modal.confirm({
      title: t('deviceModel.delete.title', { code: record.code }),
      content:
        record.deviceCount > 0
          ? t('deviceModel.delete.contentInUse', { n: record.deviceCount })
          : t('deviceModel.delete.content'),
      okText: t('deviceModel.delete.ok'),
      okButtonProps: { danger: true },
      cancelText: t('deviceModel.cancel'),
      onOk: async () => {
        try {
          await remove.mutateAsync(record.id);
        } catch (err) {
          // the server refuses while devices use the model: say so in the user's language
          message.error(errorText(err, t));
          return;
        }
        message.success(t('deviceModel.delete.success', { code: record.code }));
      },
    });
  };

  const data = list.data?.list ?? [];
  const total = list.data?.total ?? 0;
  const emptyPage = !!list.data && data.length === 0 && total > 0 && page.pageNo > 1 && !list.isPlaceholderData;
  // the last model of a page was deleted: step back instead of showing an empty page
  useEffect(() => {
    if (emptyPage) setPage((p) => ({ ...p, pageNo: Math.max(1, Math.ceil(total / p.pageSize)) }));
  }, [emptyPage, total]);

  return (
    <Card variant="borderless">
      <Flex vertical gap={16}>
        <Flex justify="space-between" align="flex-start" gap={12} wrap>
          <div>
            <Typography.Title level={4} style={{ margin: 0 }}>
              {t('deviceModel.title')}
            </Typography.Title>
            <Typography.Text type="secondary">{t('deviceModel.subtitle')}</Typography.Text>
          </div>
          <Button type="primary" icon={<PlusOutlined />} onClick={() => openForm(null)}>
            {t('deviceModel.action.create')}
          </Button>
        </Flex>
        <Flex gap={12} wrap justify="space-between" align="center">
          <Segmented<KindFilter>
            aria-label={t('deviceModel.filter.kind')}
            value={kind}
            onChange={(v) => {
              setKind(v);
              setPage((p) => ({ ...p, pageNo: 1 }));
            }}
            options={[
              { value: 'all', label: t('deviceModel.filter.all') },
              ...MODEL_KINDS.map((k) => ({ value: k, label: t(`deviceModel.kind.${k}`) })),
            ]}
          />
          <Flex gap={8} style={{ flex: '1 1 240px', maxWidth: 400 }}>
            <Input.Search
              allowClear
              maxLength={50}
              placeholder={t('deviceModel.filter.keyword')}
              onSearch={(v) => {
                setKeyword(v.trim());
                setPage((p) => ({ ...p, pageNo: 1 }));
              }}
            />
            <Tooltip title={t('deviceModel.filter.refresh')}>
              <Button
                icon={<ReloadOutlined />}
                aria-label={t('deviceModel.filter.refresh')}
                loading={list.isFetching && !list.isPending}
                onClick={() => void list.refetch()}
              />
            </Tooltip>
          </Flex>
        </Flex>
        <ModelTable
          data={data}
          total={total}
          pageNo={page.pageNo}
          pageSize={page.pageSize}
          loading={list.isFetching}
          onPageChange={(pageNo, pageSize) => setPage({ pageNo: pageSize === page.pageSize ? pageNo : 1, pageSize })}
          onEdit={openForm}
          onDelete={confirmDelete}
        />
      </Flex>
      <ModelModal
        open={formOpen}
        record={editing}
        onClose={() => setFormOpen(false)}
        onSaved={(saved, created) => {
          setFormOpen(false);
          message.success(
            created
              ? t('deviceModel.form.created', { code: saved.code })
              : t('deviceModel.form.saved', { code: saved.code }),
          );
        }}
      />
    </Card>
  );
}
