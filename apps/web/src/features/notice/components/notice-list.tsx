import { PushpinOutlined } from '@ant-design/icons';
import { Badge, Button, Empty, Flex, List, Tag, Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { NoticeItem } from '@cpc/contracts/notice';
import { formatDateTime } from '@/lib/format/relative-time';
import { usePaging, useStepBackWhenEmpty } from '@/lib/use-paging';
import { useNoticeList, useReadAllNotices } from '../api/notice';

export const detailPath = (id: number) => `/notice/detail?id=${id}`;

function Row({ item }: { item: NoticeItem }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const navigate = useNavigate();
  const open = () => void navigate(detailPath(item.id));
  return (
    <List.Item
      data-testid="notice-row"
      data-unread={!item.read}
      role="link"
      tabIndex={0}
      onClick={open}
      onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && open()}
      style={{
        cursor: 'pointer',
        paddingInline: 12,
        background: item.read ? undefined : token.colorPrimaryBg,
        borderRadius: token.borderRadius,
      }}
    >
      <Flex gap={10} align="flex-start" style={{ width: '100%', minWidth: 0 }}>
        <Badge
          status={item.read ? 'default' : 'processing'}
          title={item.read ? t('notice.read') : t('notice.unread')}
          style={{ marginTop: 6, visibility: item.read ? 'hidden' : 'visible' }}
        />
        <Flex vertical gap={4} style={{ flex: 1, minWidth: 0 }}>
          <Flex gap={8} align="center" wrap>
            <Typography.Text strong={!item.read} type={item.read ? 'secondary' : undefined} style={{ minWidth: 0 }}>
              {item.title}
            </Typography.Text>
            {item.pinned && (
              <Tag icon={<PushpinOutlined />} color="blue" style={{ marginInlineEnd: 0 }}>
                {t('notice.pinned')}
              </Tag>
            )}
            {!item.read && (
              <Tag color="processing" style={{ marginInlineEnd: 0 }}>
                {t('notice.unread')}
              </Tag>
            )}
          </Flex>
          <Typography.Text type="secondary" style={{ fontSize: token.fontSizeSM }}>
            {t('notice.publishedAt', { time: formatDateTime(item.publishedAt) })}
            {item.endsAt ? ` · ${t('notice.endsAt', { time: formatDateTime(item.endsAt) })}` : ''}
          </Typography.Text>
        </Flex>
        {item.image && (
          <img
            src={item.image}
            alt=""
            width={72}
            height={40}
            style={{ objectFit: 'cover', borderRadius: token.borderRadius, flex: 'none' }}
          />
        )}
      </Flex>
    </List.Item>
  );
}

/** The announcements a customer (or staff) may read: pinned on top, unread first and emphasised. */
export function NoticeList() {
  const { t } = useTranslation();
  const paging = usePaging(10);
  const list = useNoticeList(paging.page);
  const readAll = useReadAllNotices();
  useStepBackWhenEmpty(list, paging);
  const items = list.data?.list ?? [];
  const anyUnread = items.some((n) => !n.read);
  return (
    <Flex vertical gap={12}>
      <Flex justify="flex-end" gap={8}>
        <Button onClick={() => void list.refetch()} loading={list.isFetching && !list.isPending}>
          {t('notice.refresh')}
        </Button>
        <Button disabled={!anyUnread} loading={readAll.isPending} onClick={() => readAll.mutate()}>
          {t('notice.readAll')}
        </Button>
      </Flex>
      {list.isError ? (
        <Flex vertical align="center" gap={8} style={{ padding: 24 }}>
          <Typography.Text type="danger">{t('notice.loadFailed')}</Typography.Text>
          <Button size="small" onClick={() => void list.refetch()}>
            {t('notice.retry')}
          </Button>
        </Flex>
      ) : (
        <List
          data-testid="notice-list"
          loading={list.isPending}
          dataSource={items}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('notice.empty')} /> }}
          split={false}
          renderItem={(item) => <Row item={item} />}
          pagination={
            (list.data?.total ?? 0) > paging.page.pageSize
              ? {
                  current: paging.page.pageNo,
                  pageSize: paging.page.pageSize,
                  total: list.data?.total ?? 0,
                  onChange: paging.onPageChange,
                  size: 'small',
                  showSizeChanger: false,
                }
              : false
          }
        />
      )}
    </Flex>
  );
}
