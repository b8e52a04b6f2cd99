import {
  DeleteOutlined,
  DownOutlined,
  EditOutlined,
  PlusOutlined,
  ReloadOutlined,
  StopOutlined,
  SyncOutlined,
  CheckCircleOutlined,
  UnorderedListOutlined,
  WarningOutlined,
} from '@ant-design/icons';
import { App, Button, Dropdown, Flex, Table, Tag, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import { useState, type HTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';
import type { AppKeyView, AppKeyWithSecret } from '@cpc/contracts/integration';
import { APP_KEYS_MAX } from '@cpc/contracts/integration-constants';
import { formatDateTime } from '@/lib/format/relative-time';
import { useDeleteKey, useKeys, useRotateKey, useSetKeyState } from '../api/integration';
import { KEY_STATE_COLOR } from '../utils/format';
import { KeyDrawer } from './key-drawer';
import { KeyModal } from './key-modal';
import { SecretModal } from './secret-modal';

/** The account's app keys: create, edit, rotate, disable, delete; each with its request log and usage. */
export function KeysPanel() {
  const { t } = useTranslation();
  const { message, modal } = App.useApp();
  const [page, setPage] = useState({ pageNo: 1, pageSize: 20 });
  const [formOpen, setFormOpen] = useState(false);
  const [editing, setEditing] = useState<AppKeyView | null>(null);
  const [secret, setSecret] = useState<{ key: AppKeyWithSecret; rotated: boolean } | null>(null);
  const [logOf, setLogOf] = useState<AppKeyView | null>(null);
  const list = useKeys(page);
  const rotate = useRotateKey();
  const setState = useSetKeyState();
  const remove = useDeleteKey();
  const total = list.data?.total ?? 0;

  const openForm = (record: AppKeyView | null) => {
    setEditing(record);
    setFormOpen(true);
  };

  const confirmRotate = (r: AppKeyView) =>
    modal.confirm({
      title: t('integration.rotate.title', { name: r.name }),
      content: t('integration.rotate.content'),
      okText: t('integration.rotate.ok'),
      okButtonProps: { danger: true },
      cancelText: t('integration.cancel'),
      onOk: () =>
        rotate.mutateAsync(r.id).then(
          (key) => setSecret({ key, rotated: true }),
          // the request layer has said why
          () => {},
        ),
    });

  const toggle = (r: AppKeyView) => {
    const next = r.state === 'active' ? 'disabled' : 'active';
    const run = () =>
      setState.mutateAsync({ id: r.id, state: next }).then(
        () =>
          void message.success(
            t(next === 'active' ? 'integration.state.enabled' : 'integration.state.disabledDone', { name: r.name }),
          ),
        () => {},
      );
    if (next === 'active') return void run();
    modal.confirm({
      title: t('integration.state.disableTitle', { name: r.name }),
      content: t('integration.state.disableContent'),
      okText: t('integration.state.disable'),
      okButtonProps: { danger: true },
      cancelText: t('integration.cancel'),
      onOk: run,
    });
  };

  const confirmDelete = (r: AppKeyView) =>
    modal.confirm({
      title: t('integration.delete.title', { name: r.name }),
      content: t('integration.delete.content'),
      okText: t('integration.delete.ok'),
      okButtonProps: { danger: true },
      cancelText: t('integration.cancel'),
      onOk: () =>
        remove.mutateAsync(r.id).then(
          () => void message.success(t('integration.delete.done', { name: r.name })),
          () => {},
        ),
    });

  const columns: TableProps<AppKeyView>['columns'] = [
    {
      key: 'name',
      dataIndex: 'name',
      title: t('integration.column.name'),
      width: 180,
      render: (v: string, r) => (
        <Flex vertical>
          <Typography.Text strong ellipsis={{ tooltip: v }}>
            {v}
          </Typography.Text>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t('integration.column.secretHint', { hint: r.secretHint })}
          </Typography.Text>
        </Flex>
      ),
    },
    {
      key: 'appId',
      dataIndex: 'appId',
      title: t('integration.column.appId'),
      width: 210,
      render: (v: string) => (
        <Typography.Text code copyable={{ text: v }} style={{ whiteSpace: 'nowrap' }}>
          {v}
        </Typography.Text>
      ),
    },
    {
      key: 'state',
      dataIndex: 'state',
      title: t('integration.column.state'),
      width: 90,
      render: (v: AppKeyView['state']) => <Tag color={KEY_STATE_COLOR[v]}>{t(`integration.keyState.${v}`)}</Tag>,
    },
    {
      key: 'callbackUrl',
      dataIndex: 'callbackUrl',
      title: t('integration.column.callbackUrl'),
      width: 220,
      ellipsis: { showTitle: false },
      render: (v: string, r: AppKeyView) =>
        !v ? (
          <Typography.Text type="secondary">{t('integration.column.noCallback')}</Typography.Text>
        ) : r.callbackPrivate ? (
          // an internal address is delivered only where the server allows it (development): say so beside it
          <Tooltip title={`${v} — ${t('integration.column.callbackPrivate')}`}>
            <Typography.Text type="warning" data-testid="callback-private">
              <WarningOutlined aria-label={t('integration.column.callbackPrivate')} /> {v}
            </Typography.Text>
          </Tooltip>
        ) : (
          <Tooltip title={v}>{v}</Tooltip>
        ),
    },
    {
      key: 'ipAllowList',
      dataIndex: 'ipAllowList',
      title: t('integration.column.ipAllowList'),
      width: 180,
      render: (v: string[]) =>
        v.length ? (
          <Tooltip title={v.join(', ')}>
            <Flex wrap gap={4}>
              {v.slice(0, 2).map((ip) => (
                <Tag key={ip} style={{ marginInlineEnd: 0 }}>
                  {ip}
                </Tag>
              ))}
              {v.length > 2 && <Tag style={{ marginInlineEnd: 0 }}>+{v.length - 2}</Tag>}
            </Flex>
          </Tooltip>
        ) : (
          <Typography.Text type="secondary">{t('integration.column.anyIp')}</Typography.Text>
        ),
    },
    {
      key: 'rateLimit',
      dataIndex: 'effectiveRateLimit',
      title: t('integration.column.rateLimit'),
      width: 120,
      render: (v: number, r) =>
        r.rateLimit === null ? (
          <Typography.Text type="secondary">{t('integration.column.rateLimitDefault', { n: v })}</Typography.Text>
        ) : (
          t('integration.column.rateLimitValue', { n: v })
        ),
    },
    {
      key: 'createdAt',
      dataIndex: 'createdAt',
      title: t('integration.column.createdAt'),
      width: 150,
      render: (v: string) => formatDateTime(v),
    },
    {
      key: 'lastUsedAt',
      dataIndex: 'lastUsedAt',
      title: t('integration.column.lastUsedAt'),
      width: 150,
      render: (v: string | null) =>
        v ? formatDateTime(v) : <Typography.Text type="secondary">{t('integration.column.never')}</Typography.Text>,
    },
    {
      key: 'actions',
      title: t('integration.column.actions'),
      fixed: 'right',
      width: 170,
      render: (_, r) => (
        <Flex gap={0} wrap={false}>
          <Button type="link" size="small" icon={<UnorderedListOutlined />} onClick={() => setLogOf(r)}>
            {t('integration.action.log')}
          </Button>
          <Dropdown
            trigger={['click']}
            menu={{
              items: [
                {
                  key: 'edit',
                  icon: <EditOutlined />,
                  label: t('integration.action.edit'),
                  onClick: () => openForm(r),
                },
                {
                  key: 'rotate',
                  icon: <SyncOutlined />,
                  label: t('integration.action.rotate'),
                  onClick: () => void confirmRotate(r),
                },
                r.state === 'active'
                  ? {
                      key: 'disable',
                      icon: <StopOutlined />,
                      label: t('integration.action.disable'),
                      onClick: () => toggle(r),
                    }
                  : {
                      key: 'enable',
                      icon: <CheckCircleOutlined />,
                      label: t('integration.action.enable'),
                      onClick: () => toggle(r),
                    },
                { type: 'divider' },
                {
                  key: 'delete',
                  icon: <DeleteOutlined />,
                  danger: true,
                  label: t('integration.action.delete'),
                  onClick: () => void confirmDelete(r),
                },
              ],
            }}
          >
            <Button type="link" size="small" data-testid="key-more">
              {t('integration.action.more')} <DownOutlined />
            </Button>
          </Dropdown>
        </Flex>
      ),
    },
  ];

  return (
    <Flex vertical gap={12}>
      <Flex justify="space-between" align="center" gap={8} wrap>
        <Typography.Text type="secondary">
          {t('integration.keys.hint', { n: total, max: APP_KEYS_MAX })}
        </Typography.Text>
        <Flex gap={8}>
          <Tooltip title={t('integration.refresh')}>
            <Button
              icon={<ReloadOutlined />}
              aria-label={t('integration.refresh')}
              loading={list.isFetching && !list.isPending}
              onClick={() => void list.refetch()}
            />
          </Tooltip>
          <Button
            type="primary"
            icon={<PlusOutlined />}
            disabled={total >= APP_KEYS_MAX}
            onClick={() => openForm(null)}
          >
            {t('integration.action.create')}
          </Button>
        </Flex>
      </Flex>
      <Table<AppKeyView>
        rowKey="id"
        columns={columns}
        dataSource={list.data?.list ?? []}
        loading={list.isPending}
        scroll={{ x: 1420 }}
        onRow={(r) => ({ 'data-app-id': r.appId, 'data-state': r.state }) as HTMLAttributes<HTMLElement>}
        locale={{ emptyText: t('integration.keys.empty') }}
        pagination={{
          current: page.pageNo,
          pageSize: page.pageSize,
          total,
          hideOnSinglePage: true,
          showTotal: (n) => t('integration.total', { total: n }),
          onChange: (pageNo, pageSize) => setPage({ pageNo: pageSize === page.pageSize ? pageNo : 1, pageSize }),
        }}
      />
      <KeyModal
        open={formOpen}
        record={editing}
        onClose={() => setFormOpen(false)}
        onCreated={(key) => {
          setFormOpen(false);
          setSecret({ key, rotated: false });
        }}
        onSaved={(key) => {
          setFormOpen(false);
          message.success(t('integration.form.saved', { name: key.name }));
        }}
      />
      {secret && <SecretModal shown={secret} onClose={() => setSecret(null)} />}
      <KeyDrawer record={logOf} onClose={() => setLogOf(null)} />
    </Flex>
  );
}
