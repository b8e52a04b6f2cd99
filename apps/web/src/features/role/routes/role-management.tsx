import { PlusOutlined } from '@ant-design/icons';
import { App, Button } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PERMISSIONS } from '@cpc/contracts';
import type { RoleView } from '@cpc/contracts/role';
import { ListPage, SearchAndRefresh } from '@/components/list-page';
import { Permission } from '@/lib/session';
import { usePaging, useStepBackWhenEmpty } from '@/lib/use-paging';
import { useDeleteRole, useRoleList } from '../api/role';
import { CopyModal } from '../components/copy-modal';
import { DeleteModal } from '../components/delete-modal';
import { MembersDrawer } from '../components/members-drawer';
import { RoleDrawer } from '../components/role-drawer';
import { RoleTable } from '../components/role-table';

/**
 * The tenant's roles (issue 12): list, create and edit with the permission tree, copy, members, delete (a role in
 * use only by moving its members to another role).
 */
export default function RoleManagementPage() {
  const { t } = useTranslation();
  const { message, modal } = App.useApp();
  const [keyword, setKeyword] = useState('');
  const paging = usePaging();
  const { page } = paging;
  const [editing, setEditing] = useState<RoleView | null>(null);
  const [formOpen, setFormOpen] = useState(false);
  const [members, setMembers] = useState<RoleView | null>(null);
  const [copying, setCopying] = useState<RoleView | null>(null);
  const [deleting, setDeleting] = useState<RoleView | null>(null);
  const list = useRoleList({ ...page, keyword: keyword || undefined });
  const remove = useDeleteRole();

  const openForm = (record: RoleView | null) => {
    setEditing(record);
    setFormOpen(true);
  };

  const confirmDelete = (record: RoleView) => {
    if (record.memberCount > 0) return setDeleting(record);
    modal.confirm({
      title: t('role.delete.title', { name: record.name }),
      content: t('role.delete.content'),
      okText: t('role.delete.ok'),
      okButtonProps: { danger: true },
      cancelText: t('role.cancel'),
      onOk: async () => {
        try {
          await remove.mutateAsync({ id: record.id });
        } catch {
          return; // the request layer said why
        }
        message.success(t('role.delete.success', { name: record.name }));
      },
    });
  };

  useStepBackWhenEmpty(list, paging);
  const data = list.data?.list ?? [];
  const total = list.data?.total ?? 0;

  return (
    <ListPage
      title={t('role.title')}
      subtitle={t('role.subtitle')}
      action={
        <Permission value={PERMISSIONS.roleEdit}>
          <Button type="primary" icon={<PlusOutlined />} onClick={() => openForm(null)}>
            {t('role.action.create')}
          </Button>
        </Permission>
      }
      toolbar={
        <SearchAndRefresh
          placeholder={t('role.filter.keyword')}
          refreshLabel={t('role.filter.refresh')}
          onSearch={(v) => {
            setKeyword(v);
            paging.toFirst();
          }}
          refreshing={list.isFetching && !list.isPending}
          onRefresh={() => void list.refetch()}
        />
      }
      overlays={
        <>
          <RoleDrawer
            open={formOpen}
            record={editing}
            onClose={() => setFormOpen(false)}
            onSaved={(saved, created) => {
              setFormOpen(false);
              message.success(
                created ? t('role.form.created', { name: saved.name }) : t('role.form.saved', { name: saved.name }),
              );
            }}
          />
          <MembersDrawer role={members} onClose={() => setMembers(null)} />
          <CopyModal
            source={copying}
            onClose={() => setCopying(null)}
            onCopied={(role) => {
              setCopying(null);
              message.success(t('role.copy.success', { name: role.name }));
            }}
          />
          <DeleteModal
            role={deleting}
            onClose={() => setDeleting(null)}
            onDeleted={(role) => {
              setDeleting(null);
              message.success(t('role.delete.success', { name: role.name }));
            }}
          />
        </>
      }
    >
      <RoleTable
        data={data}
        total={total}
        pageNo={page.pageNo}
        pageSize={page.pageSize}
        loading={list.isFetching}
        onPageChange={paging.onPageChange}
        onEdit={openForm}
        onMembers={setMembers}
        onCopy={setCopying}
        onDelete={confirmDelete}
      />
    </ListPage>
  );
}
