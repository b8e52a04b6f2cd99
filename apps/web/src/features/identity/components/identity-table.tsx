import { CheckOutlined, CloseOutlined, EyeOutlined } from '@ant-design/icons';
import { Button, Flex, Table, Tag, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import type { IdentityView } from '@cpc/contracts';
import { AUTH_STATUS } from '@cpc/contracts/constants';
import { maskCreditCode, maskIdNumber } from '../../../lib/format/mask';
import { IdentityStatusTag } from './status-tag';

interface IdentityTableProps {
  data: IdentityView[];
  total: number;
  pageNo: number;
  pageSize: number;
  loading: boolean;
  canReview: boolean;
  onPageChange: (pageNo: number, pageSize: number) => void;
  onDetail: (record: IdentityView) => void;
  onApprove: (record: IdentityView) => void;
  onReject: (record: IdentityView) => void;
}

export function IdentityTable(props: IdentityTableProps) {
  const { data, total, pageNo, pageSize, loading, canReview, onPageChange, onDetail, onApprove, onReject } = props;
  const { t } = useTranslation();

  const columns: TableProps<IdentityView>['columns'] = [
    {
      key: 'account',
      title: t('identity.column.account'),
      width: 180,
      render: (_, r) => (
        <Flex vertical>
          <Typography.Text strong>{r.username}</Typography.Text>
          {r.mobile && (
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {r.mobile}
            </Typography.Text>
          )}
        </Flex>
      ),
    },
    {
      key: 'type',
      title: t('identity.column.type'),
      width: 100,
      render: (_, r) => <Tag color={r.type === 'individual' ? 'blue' : 'purple'}>{t(`identity.type.${r.type}`)}</Tag>,
    },
    {
      key: 'name',
      title: t('identity.column.name'),
      ellipsis: true,
      render: (_, r) => (r.type === 'individual' ? r.realName : r.companyName) ?? t('identity.none'),
    },
    {
      key: 'number',
      title: t('identity.column.number'),
      width: 200,
      render: (_, r) => (
        <Typography.Text code style={{ whiteSpace: 'nowrap' }}>
          {r.type === 'individual' ? maskIdNumber(r.idNumber) : maskCreditCode(r.creditCode)}
        </Typography.Text>
      ),
    },
    {
      key: 'submittedAt',
      dataIndex: 'submittedAt',
      title: t('identity.column.submittedAt'),
      width: 170,
      render: (v: string) => dayjs(v).format('YYYY-MM-DD HH:mm'),
    },
    {
      key: 'status',
      dataIndex: 'status',
      title: t('identity.column.status'),
      width: 110,
      render: (_, r) =>
        r.status === AUTH_STATUS.failed && r.reason ? (
          <Tooltip title={r.reason}>
            <span>
              <IdentityStatusTag status={r.status} />
            </span>
          </Tooltip>
        ) : (
          <IdentityStatusTag status={r.status} />
        ),
    },
    {
      key: 'actions',
      title: t('identity.column.actions'),
      fixed: 'right',
      width: canReview ? 220 : 90,
      render: (_, r) => (
        <Flex gap={4} wrap={false}>
          <Button type="link" size="small" icon={<EyeOutlined />} onClick={() => onDetail(r)}>
            {t('identity.action.detail')}
          </Button>
          {canReview && r.status === AUTH_STATUS.waiting && (
            <>
              <Button type="link" size="small" icon={<CheckOutlined />} onClick={() => onApprove(r)}>
                {t('identity.action.approve')}
              </Button>
              <Button type="link" size="small" danger icon={<CloseOutlined />} onClick={() => onReject(r)}>
                {t('identity.action.reject')}
              </Button>
            </>
          )}
        </Flex>
      ),
    },
  ];

  return (
    <Table<IdentityView>
      rowKey="id"
      columns={columns}
      dataSource={data}
      loading={loading}
      scroll={{ x: 1080 }}
      locale={{ emptyText: t('identity.empty') }}
      onRow={(r) => ({ onDoubleClick: () => onDetail(r) })}
      pagination={{
        current: pageNo,
        pageSize,
        total,
        showSizeChanger: true,
        pageSizeOptions: [10, 20, 50, 100],
        showTotal: (n) => t('identity.total', { total: n }),
        onChange: onPageChange,
      }}
    />
  );
}
