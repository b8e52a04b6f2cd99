import {
  DeleteOutlined,
  EditOutlined,
  KeyOutlined,
  MoreOutlined,
  StopOutlined,
  CheckCircleOutlined,
  LogoutOutlined,
} from '@ant-design/icons';
import { Button, Dropdown, Empty, Flex, Grid, Space, Table, Tag, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import { useTranslation } from 'react-i18next';
import type { SubAccountView } from '@cpc/contracts';
import { formatDateTime, formatRelativeTime } from '@/lib/format/relative-time';
import { useLanguage } from '@/lib/i18n';
import { roleLabel } from '../utils/role-label';

export type SubAccountAction = 'edit' | 'resetPassword' | 'toggle' | 'logout' | 'delete';

interface SubAccountTableProps {
  data: SubAccountView[];
  total: number;
  pageNo: number;
  pageSize: number;
  loading: boolean;
  /** Height of the scroll area (SPEC §9's table height). */
  scrollY?: number;
  onPageChange: (pageNo: number, pageSize: number) => void;
  onAction: (action: SubAccountAction, record: SubAccountView) => void;
  /** The signed-in user: its own row offers only editing (the server refuses the rest). */
  selfId?: number | null;
  /** Platform staff users rather than a customer's sub-accounts (the wording of the total). */
  staff?: boolean;
}

export function SubAccountTable({
  data,
  total,
  pageNo,
  pageSize,
  loading,
  scrollY,
  onPageChange,
  onAction,
  selfId = null,
  staff = false,
}: SubAccountTableProps) {
  const { t } = useTranslation();
  const { language } = useLanguage();
  const none = t('user.subAccount.none');
  // a phone shows account, state and icon-only actions, which fit without scrolling
  const compact = !Grid.useBreakpoint().sm;
  // pinned columns over an empty table only clip its header
  const pin = data.length > 0 && !compact;

  const columns: TableProps<SubAccountView>['columns'] = [
    {
      key: 'account',
      title: t('user.subAccount.column.account'),
      fixed: pin ? 'left' : undefined,
      width: compact ? undefined : 170,
      render: (_, r) => (
        <Flex vertical>
          <Typography.Text strong>{r.username}</Typography.Text>
          {r.nickname && (
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {r.nickname}
            </Typography.Text>
          )}
        </Flex>
      ),
    },
    // narrow screens keep the account, roles, state and actions; the rest is in the edit dialog
    {
      key: 'mobile',
      title: t('user.subAccount.column.mobile'),
      width: 120,
      responsive: ['md'],
      render: (_, r) => r.mobile || none,
    },
    {
      key: 'email',
      title: t('user.subAccount.column.email'),
      width: 160,
      ellipsis: true,
      responsive: ['lg'],
      render: (_, r) => r.email || none,
    },
    {
      key: 'roles',
      title: t('user.subAccount.column.roles'),
      width: 180,
      responsive: ['sm'],
      render: (_, r) =>
        r.roles.length ? (
          <Space size={[4, 4]} wrap>
            {r.roles.map((role) => (
              <Tag key={role.id} color="blue">
                {roleLabel(role, t)}
              </Tag>
            ))}
          </Space>
        ) : (
          none
        ),
    },
    {
      key: 'department',
      title: t('user.subAccount.column.department'),
      width: 130,
      ellipsis: true,
      responsive: ['md'],
      render: (_, r) => r.departmentName ?? none,
    },
    {
      key: 'state',
      title: t('user.subAccount.column.state'),
      width: compact ? 80 : 90,
      render: (_, r) => (
        <Tag color={r.state === 'active' ? 'success' : 'default'}>{t(`user.subAccount.state.${r.state}`)}</Tag>
      ),
    },
    {
      key: 'lastLogin',
      title: t('user.subAccount.column.lastLogin'),
      width: 120,
      responsive: ['md'],
      render: (_, r) =>
        r.lastLoginAt ? (
          <Tooltip title={formatDateTime(r.lastLoginAt)}>
            <span>{formatRelativeTime(r.lastLoginAt, language)}</span>
          </Tooltip>
        ) : (
          <Typography.Text type="secondary">{t('user.subAccount.never')}</Typography.Text>
        ),
    },
    {
      key: 'createdAt',
      title: t('user.subAccount.column.createdAt'),
      width: 140,
      responsive: ['xxl'],
      render: (_, r) => formatDateTime(r.createdAt),
    },
    {
      key: 'actions',
      title: t('user.subAccount.column.actions'),
      fixed: pin ? 'right' : undefined,
      width: compact ? 84 : 150,
      render: (_, r) => (
        <Space size={0}>
          <Button
            type="link"
            size="small"
            icon={<EditOutlined />}
            aria-label={compact ? t('user.subAccount.action.edit') : undefined}
            onClick={() => onAction('edit', r)}
          >
            {!compact && t('user.subAccount.action.edit')}
          </Button>
          <Dropdown
            trigger={['click']}
            disabled={r.id === selfId}
            menu={{
              items: [
                { key: 'resetPassword', icon: <KeyOutlined />, label: t('user.subAccount.action.resetPassword') },
                r.state === 'active'
                  ? { key: 'toggle', icon: <StopOutlined />, label: t('user.subAccount.action.disable') }
                  : { key: 'toggle', icon: <CheckCircleOutlined />, label: t('user.subAccount.action.enable') },
                { key: 'logout', icon: <LogoutOutlined />, label: t('user.subAccount.action.logout') },
                { type: 'divider' },
                { key: 'delete', icon: <DeleteOutlined />, danger: true, label: t('user.subAccount.action.delete') },
              ],
              onClick: ({ key }) => onAction(key as SubAccountAction, r),
            }}
          >
            <Button
              type="link"
              size="small"
              icon={<MoreOutlined />}
              aria-label={`${t('user.subAccount.action.more')} ${r.username}`}
            >
              {!compact && t('user.subAccount.action.more')}
            </Button>
          </Dropdown>
        </Space>
      ),
    },
  ];

  return (
    <Table<SubAccountView>
      rowKey="id"
      size="middle"
      columns={columns}
      dataSource={data}
      loading={loading}
      scroll={{ x: compact ? undefined : 'max-content', y: scrollY }}
      locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('user.subAccount.empty')} /> }}
      pagination={{
        current: pageNo,
        pageSize,
        total,
        showSizeChanger: true,
        showTotal: (n) => t(staff ? 'user.subAccount.staffTotal' : 'user.subAccount.total', { count: n }),
        onChange: onPageChange,
      }}
    />
  );
}
