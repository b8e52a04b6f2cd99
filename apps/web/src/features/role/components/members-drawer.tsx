import { DeleteOutlined, UserAddOutlined } from '@ant-design/icons';
import { App, Button, Drawer, Flex, Grid, Popconfirm, Select, Table, Tag, Typography } from 'antd';
import type { TableProps } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PERMISSIONS } from '@cpc/contracts';
import type { RoleMember, RoleView } from '@cpc/contracts/role';
import { useDebounced } from '@/lib/use-debounced';
import { Permission } from '@/lib/session';
import { useAddMembers, useCandidates, useMembers, useRemoveMembers } from '../api/role';

interface MembersDrawerProps {
  role: RoleView | null;
  onClose: () => void;
}

/** A role's members: the list, adding users of the tenant, taking the role from one. */
export function MembersDrawer({ role, onClose }: MembersDrawerProps) {
  const { t } = useTranslation();
  const screens = Grid.useBreakpoint();
  const { message } = App.useApp();
  const [page, setPage] = useState({ pageNo: 1, pageSize: 10 });
  const [picked, setPicked] = useState<number[]>([]);
  const [search, setSearch] = useState('');
  const keyword = useDebounced(search, 300);
  const id = role?.id ?? null;
  const members = useMembers(id, page.pageNo, page.pageSize);
  const candidates = useCandidates(id, keyword);
  const add = useAddMembers();
  const remove = useRemoveMembers();

  useEffect(() => {
    setPage({ pageNo: 1, pageSize: 10 });
    setPicked([]);
    setSearch('');
  }, [id]);

  const addPicked = async () => {
    if (!id || !picked.length) return;
    try {
      await add.mutateAsync({ id, userIds: picked });
    } catch {
      return; // the request layer said why
    }
    message.success(t('role.members.added', { n: picked.length }));
    setPicked([]);
  };

  const removeOne = async (m: RoleMember) => {
    if (!id) return;
    try {
      await remove.mutateAsync({ id, userIds: [m.id] });
    } catch {
      return;
    }
    message.success(t('role.members.removed', { name: m.username }));
  };

  const columns: TableProps<RoleMember>['columns'] = [
    {
      key: 'username',
      dataIndex: 'username',
      title: t('role.members.username'),
      render: (v: string, m) => (
        <Flex gap={4} wrap align="center">
          <Typography.Text>{v}</Typography.Text>
          {m.main && <Tag color="gold">{t('role.members.main')}</Tag>}
          {m.state !== 'active' && <Tag>{t('role.members.disabled')}</Tag>}
        </Flex>
      ),
    },
    { key: 'nickname', dataIndex: 'nickname', title: t('role.members.nickname'), ellipsis: true },
    {
      key: 'actions',
      title: t('role.column.actions'),
      width: 90,
      render: (_, m) => (
        <Permission value={PERMISSIONS.roleEdit}>
          <Popconfirm
            title={t('role.members.removeConfirm', { name: m.username })}
            okText={t('role.members.remove')}
            cancelText={t('role.cancel')}
            onConfirm={() => removeOne(m)}
          >
            <Button size="small" type="link" danger icon={<DeleteOutlined />}>
              {t('role.members.remove')}
            </Button>
          </Popconfirm>
        </Permission>
      ),
    },
  ];

  return (
    <Drawer
      open={!!role}
      onClose={onClose}
      size={screens.sm ? 560 : '100%'}
      title={t('role.members.title', { name: role?.name ?? '' })}
    >
      <Flex vertical gap={16}>
        <Permission value={PERMISSIONS.roleEdit}>
          <Flex gap={8} wrap>
            <Select
              mode="multiple"
              aria-label={t('role.members.pick')}
              placeholder={t('role.members.pick')}
              style={{ flex: '1 1 220px', minWidth: 0 }}
              value={picked}
              onChange={setPicked}
              showSearch
              filterOption={false}
              onSearch={setSearch}
              loading={candidates.isFetching}
              options={(candidates.data ?? []).map((u) => ({
                value: u.id,
                label: u.nickname ? `${u.username} (${u.nickname})` : u.username,
              }))}
              notFoundContent={t('role.members.noCandidates')}
            />
            <Button
              type="primary"
              icon={<UserAddOutlined />}
              disabled={!picked.length}
              loading={add.isPending}
              onClick={() => void addPicked()}
            >
              {t('role.members.add')}
            </Button>
          </Flex>
        </Permission>
        <Table<RoleMember>
          rowKey="id"
          size="small"
          columns={columns}
          dataSource={members.data?.list ?? []}
          loading={members.isFetching}
          locale={{ emptyText: t('role.members.empty') }}
          pagination={{
            current: page.pageNo,
            pageSize: page.pageSize,
            total: members.data?.total ?? 0,
            size: 'small',
            showTotal: (total) => t('role.members.total', { total }),
            onChange: (pageNo, pageSize) => setPage({ pageNo, pageSize }),
          }}
        />
      </Flex>
    </Drawer>
  );
}
