import { CheckOutlined, DeleteOutlined } from '@ant-design/icons';
import { App, Badge, Button, Card, Flex, Grid, Popconfirm, Table, Typography, theme } from 'antd';
import type { TableProps } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { MessageItem } from '@cpc/contracts';
import { formatDateTime } from '@/lib/format/relative-time';
import { useDeleteMessages, useMessagePage, useReadAllMessages, useReadMessages, type InboxFilter } from '../api/inbox';
import { GroupTag } from '../components/group-tag';
import { InboxFilterBar } from '../components/inbox-filter';
import { MessageModal } from '../components/message-modal';
import { useInboxLive } from '../components/use-inbox-live';

const PAGE_SIZE = 20;

/**
 * The message centre (issue 14): the user's own messages from the system, newest first, filtered and paged by the
 * server. Unread ones stand out; opening one marks it read and leads on to its page; some can be marked read or
 * deleted at once, or all marked read. New messages, and changes made in another console, arrive live.
 */
export default function MessageIndexPage() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const { token } = theme.useToken();
  const narrow = !Grid.useBreakpoint().md;
  const [filter, setFilter] = useState<InboxFilter>({});
  const [pageNo, setPageNo] = useState(1);
  const [pageSize, setPageSize] = useState(PAGE_SIZE);
  const [selected, setSelected] = useState<number[]>([]);
  const [open, setOpen] = useState<number | null>(null);
  const page = useMessagePage(filter, pageNo, pageSize);
  const read = useReadMessages();
  const readAll = useReadAllMessages();
  const remove = useDeleteMessages();
  useInboxLive();

  const list = page.data?.list ?? [];
  const selectedUnread = list.filter((m) => selected.includes(m.id) && m.readAt === null).map((m) => m.id);

  const search = (f: InboxFilter) => {
    setFilter(f);
    setPageNo(1);
    setSelected([]);
  };

  const markRead = async () => {
    if (!selectedUnread.length) return;
    const r = await read.mutateAsync(selectedUnread);
    message.success(t('inbox.done.read', { count: r.updated }));
    setSelected([]);
  };
  const markAll = async () => {
    const r = await readAll.mutateAsync(undefined);
    message.success(t('inbox.done.read', { count: r.updated }));
  };
  const removeSelected = async () => {
    const r = await remove.mutateAsync(selected);
    message.success(t('inbox.done.deleted', { count: r.deleted }));
    setSelected([]);
    // the last row of the last page went: the page before
    if (r.deleted >= list.length && pageNo > 1) setPageNo(pageNo - 1);
  };

  const title = (m: MessageItem) => {
    const unread = m.readAt === null;
    return (
      <Flex vertical gap={2} style={{ minWidth: 0 }}>
        <Flex gap={8} align="center" style={{ minWidth: 0 }}>
          <Badge
            status={unread ? 'processing' : 'default'}
            style={{ visibility: unread ? 'visible' : 'hidden' }}
            title={unread ? t('inbox.unread') : undefined}
          />
          <Typography.Link
            strong={unread}
            onClick={() => setOpen(m.id)}
            style={{ color: unread ? token.colorText : token.colorTextSecondary, overflowWrap: 'anywhere' }}
            data-testid="inbox-title"
          >
            {m.title}
          </Typography.Link>
        </Flex>
        {narrow && (
          <Flex gap={8} align="center" wrap style={{ paddingInlineStart: 14 }}>
            <GroupTag kind={m.kind} />
            <Typography.Text type="secondary" style={{ fontSize: token.fontSizeSM }}>
              {formatDateTime(m.createdAt)}
            </Typography.Text>
          </Flex>
        )}
        {narrow && m.body && (
          // wrapped, not cut: an ellipsis in an auto-sized table cell widens the cell past a phone's screen
          <Typography.Text
            type="secondary"
            style={{ fontSize: token.fontSizeSM, paddingInlineStart: 14, overflowWrap: 'anywhere' }}
          >
            {m.body}
          </Typography.Text>
        )}
      </Flex>
    );
  };

  const columns: TableProps<MessageItem>['columns'] = narrow
    ? [{ key: 'title', title: t('inbox.column.title'), render: (_: unknown, m) => title(m) }]
    : [
        { key: 'title', title: t('inbox.column.title'), render: (_: unknown, m) => title(m) },
        {
          key: 'kind',
          dataIndex: 'kind',
          title: t('inbox.column.kind'),
          width: 120,
          render: (kind: string) => <GroupTag kind={kind} />,
        },
        {
          key: 'body',
          dataIndex: 'body',
          title: t('inbox.column.body'),
          ellipsis: true,
          render: (body: string) => body || '–',
        },
        {
          key: 'createdAt',
          dataIndex: 'createdAt',
          title: t('inbox.column.createdAt'),
          width: 170,
          render: (v: string) => formatDateTime(v),
        },
      ];

  return (
    <Card variant="borderless">
      <Flex vertical gap={16}>
        <div>
          <Typography.Title level={4} style={{ margin: 0 }}>
            {t('inbox.title')}
          </Typography.Title>
          <Typography.Text type="secondary">{t('inbox.subtitle')}</Typography.Text>
        </div>
        <InboxFilterBar onSearch={search} />
        <Flex gap={8} wrap align="center">
          <Button
            icon={<CheckOutlined />}
            disabled={!selectedUnread.length}
            loading={read.isPending}
            onClick={() => void markRead()}
            data-testid="inbox-read-selected"
          >
            {t('inbox.action.read')}
          </Button>
          <Popconfirm
            title={t('inbox.action.deleteConfirm', { count: selected.length })}
            okText={t('inbox.action.delete')}
            cancelText={t('inbox.action.cancel')}
            okButtonProps={{ danger: true, ...{ 'data-testid': 'inbox-delete-ok' } }}
            onConfirm={() => removeSelected()}
            disabled={!selected.length}
          >
            <Button
              danger
              icon={<DeleteOutlined />}
              disabled={!selected.length}
              loading={remove.isPending}
              data-testid="inbox-delete-selected"
            >
              {t('inbox.action.delete')}
            </Button>
          </Popconfirm>
          <Button loading={readAll.isPending} onClick={() => void markAll()} data-testid="inbox-read-all">
            {t('inbox.action.readAll')}
          </Button>
          {selected.length > 0 && (
            <Typography.Text type="secondary">{t('inbox.selected', { count: selected.length })}</Typography.Text>
          )}
        </Flex>
        <Table<MessageItem>
          rowKey="id"
          size="middle"
          columns={columns}
          dataSource={list}
          loading={page.isFetching && !page.data}
          rowSelection={{
            selectedRowKeys: selected,
            onChange: (keys) => setSelected(keys.map(Number)),
          }}
          onRow={(m) => ({ 'data-unread': m.readAt === null, 'data-testid': 'inbox-row' }) as object}
          pagination={{
            current: pageNo,
            pageSize,
            total: page.data?.total ?? 0,
            showSizeChanger: !narrow,
            size: narrow ? 'small' : undefined,
            showTotal: (total) => t('inbox.total', { total }),
            onChange: (n, size) => {
              setPageNo(size !== pageSize ? 1 : n);
              setPageSize(size);
              setSelected([]);
            },
          }}
          locale={{ emptyText: t('inbox.empty') }}
        />
      </Flex>
      <MessageModal id={open} onClose={() => setOpen(null)} />
    </Card>
  );
}
