import { PushpinOutlined } from '@ant-design/icons';
import { Badge, Button, Empty, Flex, Spin, Tag, Typography, theme } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { NoticeItem } from '@cpc/contracts';
import { useNoticeUnreadCount, useNotices } from '../../lib/notice-api';
import { sanitizeHtml } from '../../lib/sanitize-html';
import { useStableNavigate } from '../use-stable-navigate';

/** Where an announcement opens (the notices section's detail page). */
export const noticeDetailPath = (id: number) => `/notice/detail?id=${id}`;

/** The first words of an announcement, as text: its HTML cleaned by DOMPurify, then only its text kept. */
export const previewOf = (html: string): string =>
  (new DOMParser().parseFromString(sanitizeHtml(html), 'text/html').body.textContent ?? '').replace(/\s+/g, ' ').trim();

/** The notice tab's label: "Announcements" with the user's unread count. */
export function NoticeTabLabel({ label }: { label: string }) {
  const count = useNoticeUnreadCount().data?.count ?? 0;
  return (
    <Badge count={count} size="small" offset={[8, -2]} data-testid="notice-tab-count">
      <span>{label}</span>
    </Badge>
  );
}

function NoticeRow({
  item,
  timeAgo,
  onOpen,
}: {
  item: NoticeItem;
  timeAgo: (when: string) => string;
  onOpen: () => void;
}) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const preview = useMemo(() => previewOf(item.notice), [item.notice]);
  return (
    <li
      data-testid="notice-item"
      role="button"
      tabIndex={0}
      onClick={onOpen}
      onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && onOpen()}
      style={{ padding: '10px 4px', borderBottom: `1px solid ${token.colorSplit}`, cursor: 'pointer' }}
    >
      <Flex gap={8} align="flex-start">
        <Badge status="processing" title={t('layout.header.notice.unreadDot')} style={{ marginTop: 4 }} />
        <Flex vertical gap={2} style={{ minWidth: 0, flex: 1 }}>
          <Flex align="center" gap={6}>
            <Typography.Text strong ellipsis style={{ flex: 1 }}>
              {item.title}
            </Typography.Text>
            {item.pinned && (
              <Tag icon={<PushpinOutlined />} color="blue" style={{ marginInlineEnd: 0 }}>
                {t('layout.header.notice.pinned')}
              </Tag>
            )}
          </Flex>
          {preview && (
            <span
              style={{
                display: '-webkit-box',
                WebkitLineClamp: 2,
                WebkitBoxOrient: 'vertical',
                overflow: 'hidden',
                overflowWrap: 'anywhere',
                color: token.colorTextSecondary,
                fontSize: token.fontSizeSM,
              }}
            >
              {preview}
            </span>
          )}
          <span style={{ fontSize: token.fontSizeSM, color: token.colorTextTertiary }}>
            {timeAgo(item.publishedAt)}
          </span>
        </Flex>
      </Flex>
    </li>
  );
}

/**
 * The popover's notice tab: the latest unread announcements of the user's audience, newest pinned first; one opens
 * its page (and so is read).
 */
export function NoticeTab({ timeAgo, onClose }: { timeAgo: (when: string) => string; onClose: () => void }) {
  const { t } = useTranslation();
  const navigate = useStableNavigate();
  const notices = useNotices();
  const list = notices.data?.list ?? [];
  if (notices.isPending) {
    return (
      <Flex justify="center" style={{ padding: 24 }}>
        <Spin />
      </Flex>
    );
  }
  if (notices.isError) {
    return (
      <Flex vertical align="center" gap={8} style={{ padding: 24 }}>
        <Typography.Text type="danger">{t('layout.header.notice.loadFailed')}</Typography.Text>
        <Button size="small" onClick={() => void notices.refetch()}>
          {t('layout.header.notice.retry')}
        </Button>
      </Flex>
    );
  }
  if (!list.length) {
    return (
      <Empty
        image={Empty.PRESENTED_IMAGE_SIMPLE}
        description={t('layout.header.notice.emptyNotice')}
        style={{ marginBlock: 16 }}
      />
    );
  }
  return (
    <ul style={{ listStyle: 'none', margin: 0, padding: 0, maxHeight: 360, overflowY: 'auto' }}>
      {list.map((n) => (
        <NoticeRow
          key={n.id}
          item={n}
          timeAgo={timeAgo}
          onOpen={() => {
            onClose();
            navigate(noticeDetailPath(n.id));
          }}
        />
      ))}
    </ul>
  );
}
