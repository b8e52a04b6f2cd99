import { PlusOutlined } from '@ant-design/icons';
import { App, Button, Flex, Segmented } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ModelKind } from '@cpc/contracts/device';
import type { DeviceModelView } from '@cpc/contracts/device-model';
import { MODEL_KINDS } from '@cpc/contracts/device-constants';
import { ListPage, SearchAndRefresh } from '@/components/list-page';
import { usePaging, useStepBackWhenEmpty } from '@/lib/use-paging';
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
  const paging = usePaging();
  const { page } = paging;
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

  useStepBackWhenEmpty(list, paging);
  const data = list.data?.list ?? [];
  const total = list.data?.total ?? 0;

  return (
    <ListPage
      title={t('deviceModel.title')}
      subtitle={t('deviceModel.subtitle')}
      action={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => openForm(null)}>
          {t('deviceModel.action.create')}
        </Button>
      }
      toolbar={
        <Flex gap={12} wrap justify="space-between" align="center">
          <Segmented<KindFilter>
            aria-label={t('deviceModel.filter.kind')}
            value={kind}
            onChange={(v) => {
              setKind(v);
              paging.toFirst();
            }}
            options={[
              { value: 'all', label: t('deviceModel.filter.all') },
              ...MODEL_KINDS.map((k) => ({ value: k, label: t(`deviceModel.kind.${k}`) })),
            ]}
          />
          <SearchAndRefresh
            placeholder={t('deviceModel.filter.keyword')}
            refreshLabel={t('deviceModel.filter.refresh')}
            onSearch={(v) => {
              setKeyword(v);
              paging.toFirst();
            }}
            refreshing={list.isFetching && !list.isPending}
            onRefresh={() => void list.refetch()}
          />
        </Flex>
      }
      overlays={
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
      }
    >
      <ModelTable
        data={data}
        total={total}
        pageNo={page.pageNo}
        pageSize={page.pageSize}
        loading={list.isFetching}
        onPageChange={paging.onPageChange}
        onEdit={openForm}
        onDelete={confirmDelete}
      />
    </ListPage>
  );
}
