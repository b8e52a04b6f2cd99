import { PlusOutlined, PushpinOutlined } from '@ant-design/icons';
import { App, Button, Flex, Modal, Segmented, Space, Table, Tag, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { NOTICE_STATES, type NoticeManageItem, type NoticeState } from '@cpc/contracts/notice';
import { SearchAndRefresh } from '@/components/list-page';
import { RichHtml } from '@/components/rich-html';
import { formatDateTime } from '@/lib/format/relative-time';
import { usePaging, useStepBackWhenEmpty } from '@/lib/use-paging';
import { useDeleteNotice, useManageList, usePublishNotice, useWithdrawNotice } from '../api/notice';
import { PHASE_COLORS, canDelete, canEdit, canPublish, canWithdraw, phaseOf } from '../utils/phase';
import { NoticeDrawer } from './notice-drawer';

type StateFilter = NoticeState | 'all';

/** Staff's table of every announcement: state filter, write/edit in a drawer, preview, publish, withdraw, delete. */
export function ManagePanel() {
  const { t } = useTranslation();
  const { message, modal } = App.useApp();
  const [state, setState] = useState<StateFilter>('all');
  const [keyword, setKeyword] = useState('');
  const paging = usePaging();
  const list = useManageList(
    { ...paging.page, state: state === 'all' ? undefined : state, keyword: keyword || undefined },
    true,
  );
  useStepBackWhenEmpty(list, paging);
  const [editing, setEditing] = useState<NoticeManageItem | null>(null);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [preview, setPreview] = useState<NoticeManageItem | null>(null);
  const publish = usePublishNotice();
  const withdraw = useWithdrawNotice();
  const remove = useDeleteNotice();

  const openDrawer = (r: NoticeManageItem | null) => {
    setEditing(r);
    setDrawerOpen(true);
  };

  const confirm = (r: NoticeManageItem, kind: 'publish' | 'withdraw' | 'delete') => {
    const scheduled = kind === 'publish' && r.publishAt && Date.parse(r.publishAt) > Date.now();
    modal.confirm({
      title: t(`notice.confirm.${kind}Title`, { title: r.title }),
      content:
        kind === 'publish'
          ? scheduled
            ? t('notice.confirm.publishAt', { time: formatDateTime(r.publishAt!) })
            : t('notice.confirm.publishNow')
          : kind === 'withdraw'
            ? t('notice.confirm.withdrawContent')
            : t('notice.confirm.deleteContent'),
      okText: t(`notice.action.${kind}`),
      okButtonProps: { danger: kind !== 'publish' },
      cancelText: t('notice.confirm.cancel'),
      onOk: async () => {
        if (kind === 'publish') {
          await publish.mutateAsync(r.id);
          message.success(scheduled ? t('notice.done.scheduled') : t('notice.done.published'));
        } else if (kind === 'withdraw') {
          await withdraw.mutateAsync(r.id);
          message.success(t('notice.done.withdrawn'));
        } else {
          await remove.mutateAsync(r.id);
          message.success(t('notice.done.deleted'));
        }
      },
    });
  };

  const columns: ColumnsType<NoticeManageItem> = [
    {
      title: t('notice.column.title'),
      dataIndex: 'title',
      width: 260,
      ellipsis: true,
      render: (_, r) => (
        <Space size={4}>
          {r.pinned && (
            <Tooltip title={t('notice.pinned')}>
              <PushpinOutlined aria-label={t('notice.pinned')} />
            </Tooltip>
          )}
          <Typography.Link onClick={() => setPreview(r)}>{r.title}</Typography.Link>
        </Space>
      ),
    },
    {
      title: t('notice.column.state'),
      width: 110,
      render: (_, r) => {
        const phase = phaseOf(r);
        return (
          <Tag color={PHASE_COLORS[phase]} data-testid="notice-state">
            {t(`notice.state.${phase}`)}
          </Tag>
        );
      },
    },
    {
      title: t('notice.column.audience'),
      width: 200,
      ellipsis: true,
      render: (_, r) =>
        r.audience === 'tenants'
          ? `${t('notice.audience.tenants')}: ${r.tenants.map((x) => x.name).join(', ')}`
          : t(`notice.audience.${r.audience}`),
    },
    {
      title: t('notice.column.publishAt'),
      width: 170,
      render: (_, r) => (r.publishAt ? formatDateTime(r.publishAt) : '—'),
    },
    {
      title: t('notice.column.endsAt'),
      width: 170,
      responsive: ['lg'],
      render: (_, r) => (r.endsAt ? formatDateTime(r.endsAt) : '—'),
    },
    { title: t('notice.column.reads'), dataIndex: 'reads', width: 90, responsive: ['md'] },
    {
      title: t('notice.column.actions'),
      width: 220,
      render: (_, r) => (
        <Space size={0} wrap>
          {canEdit(r) && (
            <Button type="link" size="small" onClick={() => openDrawer(r)}>
              {t('notice.action.edit')}
            </Button>
          )}
          {canPublish(r) && (
            <Button type="link" size="small" onClick={() => confirm(r, 'publish')}>
              {t('notice.action.publish')}
            </Button>
          )}
          {canWithdraw(r) && (
            <Button type="link" size="small" danger onClick={() => confirm(r, 'withdraw')}>
              {t('notice.action.withdraw')}
            </Button>
          )}
          {canDelete(r) && (
            <Button type="link" size="small" danger onClick={() => confirm(r, 'delete')}>
              {t('notice.action.delete')}
            </Button>
          )}
        </Space>
      ),
    },
  ];

  return (
    <Flex vertical gap={12}>
      <Flex gap={12} wrap justify="space-between" align="center">
        <Segmented<StateFilter>
          aria-label={t('notice.filter.state')}
          value={state}
          onChange={(v) => {
            setState(v);
            paging.toFirst();
          }}
          options={[
            { value: 'all', label: t('notice.filter.all') },
            ...NOTICE_STATES.map((s) => ({ value: s, label: t(`notice.state.${s}`) })),
          ]}
        />
        <Flex gap={8} wrap>
          <SearchAndRefresh
            placeholder={t('notice.filter.keyword')}
            refreshLabel={t('notice.refresh')}
            onSearch={(v) => {
              setKeyword(v);
              paging.toFirst();
            }}
            refreshing={list.isFetching && !list.isPending}
            onRefresh={() => void list.refetch()}
          />
          <Button type="primary" icon={<PlusOutlined />} onClick={() => openDrawer(null)} data-testid="notice-create">
            {t('notice.action.create')}
          </Button>
        </Flex>
      </Flex>
      <Table<NoticeManageItem>
        rowKey="id"
        data-testid="notice-manage-table"
        columns={columns}
        dataSource={list.data?.list ?? []}
        loading={list.isFetching}
        scroll={{ x: 1000 }}
        size="middle"
        pagination={{
          current: paging.page.pageNo,
          pageSize: paging.page.pageSize,
          total: list.data?.total ?? 0,
          onChange: paging.onPageChange,
          showSizeChanger: true,
        }}
      />
      <NoticeDrawer
        open={drawerOpen}
        record={editing}
        onClose={() => setDrawerOpen(false)}
        onDone={(text) => {
          setDrawerOpen(false);
          message.success(text);
        }}
      />
      <Modal
        open={!!preview}
        onCancel={() => setPreview(null)}
        footer={null}
        title={t('notice.action.preview')}
        width="min(720px, 100vw)"
      >
        {preview && (
          <div data-testid="notice-preview">
            <Typography.Title level={4}>{preview.title}</Typography.Title>
            <RichHtml html={preview.bodyHtml} />
          </div>
        )}
      </Modal>
    </Flex>
  );
}
