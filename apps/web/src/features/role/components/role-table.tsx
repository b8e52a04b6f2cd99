import { CopyOutlined, DeleteOutlined, EditOutlined, TeamOutlined } from '@ant-design/icons';
import { Button, Flex, Table, Tag, Typography } from 'antd';
import type { TableProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { PERMISSIONS } from '@cpc/contracts';
import type { RoleView } from '@cpc/contracts/role';
import { formatDateTime } from '@/lib/format/relative-time';
import { usePermission } from '@/lib/session';

interface RoleTableProps {
  data: RoleView[];
  total: number;
  pageNo: number;
  pageSize: number;
  loading: boolean;
  onPageChange: (pageNo: number, pageSize: number) => void;
  onEdit: (record: RoleView) => void;
  onMembers: (record: RoleView) => void;
  onCopy: (record: RoleView) => void;
  onDelete: (record: RoleView) => void;
}

const SCOPE_COLORS = { all: 'green', department: 'blue', own: 'orange' } as const;

export function RoleTable(props: RoleTableProps) {
  const { data, total, pageNo, pageSize, loading, onPageChange, onEdit, onMembers, onCopy, onDelete } = props;
  const { t } = useTranslation();
  const canEdit = usePermission(PERMISSIONS.roleEdit);
  const columns: TableProps<RoleView>['columns'] = [
    {
      key: 'name',
      dataIndex: 'name',
      title: t('role.column.name'),
      width: 170,
      render: (v: string, r) => (
        <Flex gap={4} wrap align="center">
          <Typography.Text strong>{v}</Typography.Text>
          {r.builtin && <Tag color="purple">{t('role.builtin')}</Tag>}
        </Flex>
      ),
    },
    { key: 'code', dataIndex: 'code', title: t('role.column.code'), width: 120 },
    {
      key: 'dataScope',
      dataIndex: 'dataScope',
      title: t('role.column.dataScope'),
      width: 110,
      render: (v: RoleView['dataScope']) => <Tag color={SCOPE_COLORS[v]}>{t(`role.scope.${v}`)}</Tag>,
    },
    {
      key: 'permissions',
      dataIndex: 'permissions',
      title: t('role.column.permissions'),
      width: 80,
      render: (v: string[]) => t('role.permissionCount', { n: v.length }),
    },
    {
      key: 'memberCount',
      dataIndex: 'memberCount',
      title: t('role.column.members'),
      width: 80,
      render: (v: number, r) => (
        <Button type="link" size="small" onClick={() => onMembers(r)} aria-label={t('role.action.members')}>
          {v}
        </Button>
      ),
    },
    {
      key: 'updatedAt',
      dataIndex: 'updatedAt',
      title: t('role.column.updatedAt'),
      width: 150,
      render: (v: string) => formatDateTime(v),
    },
  ];
  if (canEdit)
    columns.push({
      key: 'actions',
      title: t('role.column.actions'),
      width: 300,
      render: (_, r) => (
        <Flex gap={0} wrap>
          <Button type="link" size="small" icon={<EditOutlined />} onClick={() => onEdit(r)}>
            {t('role.action.edit')}
          </Button>
          <Button type="link" size="small" icon={<TeamOutlined />} onClick={() => onMembers(r)}>
            {t('role.action.members')}
          </Button>
          <Button type="link" size="small" icon={<CopyOutlined />} onClick={() => onCopy(r)}>
            {t('role.action.copy')}
          </Button>
          {!r.locked && (
            <Button type="link" size="small" danger icon={<DeleteOutlined />} onClick={() => onDelete(r)}>
              {t('role.action.delete')}
            </Button>
          )}
        </Flex>
      ),
    });
  return (
    <Table<RoleView>
      rowKey="id"
      columns={columns}
      dataSource={data}
      loading={loading}
      scroll={{ x: 980 }}
      locale={{ emptyText: t('role.empty') }}
      pagination={{
        current: pageNo,
        pageSize,
        total,
        showSizeChanger: true,
        showTotal: (n) => t('role.total', { total: n }),
        onChange: onPageChange,
      }}
    />
  );
}
