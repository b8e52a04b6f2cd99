import { PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { App, Button, Card, Flex, Input, Tooltip, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PERMISSIONS } from '@cpc/contracts';
import type { RoleView } from '@cpc/contracts/role';
import { Permission } from '@/lib/session';
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
  const [page, setPage] = useState({ pageNo: 1, pageSize: 20 });
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

  const data = list.data?.list ?? [];
  const total = list.data?.total ?? 0;
  const emptyPage = !!list.data && data.length === 0 && total > 0 && page.pageNo > 1 && !list.isPlaceholderData;
  useEffect(() => {
    if (emptyPage) setPage((p) => ({ ...p, pageNo: Math.max(1, Math.ceil(total / p.pageSize)) }));
  }, [emptyPage, total]);

  return (
    <Card variant="borderless">
      <Flex vertical gap={16}>
        <Flex justify="space-between" align="flex-start" gap={12} wrap>
          <div style={{ minWidth: 0, flex: '1 1 240px' }}>
            <Typography.Title level={4} style={{ margin: 0 }}>
              {t('role.title')}
            </Typography.Title>
            <Typography.Text type="secondary">{t('role.subtitle')}</Typography.Text>
          </div>
          <Permission value={PERMISSIONS.roleEdit}>
            <Button type="primary" icon={<PlusOutlined />} onClick={() => openForm(null)}>
              {t('role.action.create')}
            </Button>
          </Permission>
        </Flex>
        <Flex gap={8} style={{ maxWidth: 400 }}>
          <Input.Search
            allowClear
            maxLength={50}
            placeholder={t('role.filter.keyword')}
            onSearch={(v) => {
              setKeyword(v.trim());
              setPage((p) => ({ ...p, pageNo: 1 }));
            }}
          />
          <Tooltip title={t('role.filter.refresh')}>
            <Button
              icon={<ReloadOutlined />}
              aria-label={t('role.filter.refresh')}
              loading={list.isFetching && !list.isPending}
              onClick={() => void list.refetch()}
            />
          </Tooltip>
        </Flex>
        <RoleTable
          data={data}
          total={total}
          pageNo={page.pageNo}
          pageSize={page.pageSize}
          loading={list.isFetching}
          onPageChange={(pageNo, pageSize) => setPage({ pageNo: pageSize === page.pageSize ? pageNo : 1, pageSize })}
          onEdit={openForm}
          onMembers={setMembers}
          onCopy={setCopying}
          onDelete={confirmDelete}
        />
      </Flex>
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
    </Card>
  );
}
