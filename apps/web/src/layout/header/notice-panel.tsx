import { Badge, Button, Empty, Flex, Spin, Tabs, Typography, theme } from 'antd';
import type { CSSProperties, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { MessageItem } from '@cpc/contracts';
import { useLanguage } from '../../lib/i18n';
import { findRoute } from '../../lib/menu-routes';
import { useMarkMessagesRead, useMessages } from '../../lib/notice-api';
import { useSession } from '../../lib/session';
import { useStableNavigate } from '../use-stable-navigate';
import { RELATIVE_TIME_INTERVAL, useNow } from '@/lib/use-now';
import { formatRelativeTime } from '../../lib/format/relative-time';
import { NOTICE_PAGE, type TabKey } from './notice-popover';
import { NoticeTab, NoticeTabLabel } from './notice-tab';

/**
 * The notice popover's content: the latest unread announcements (notice-tab.tsx) and the user's messages. A chunk of
 * its own, fetched when the bell is first opened: the first signed-in page draws only the bell.
 */
const clamp = (lines: number): CSSProperties => ({
  display: '-webkit-box',
  WebkitLineClamp: lines,
  WebkitBoxOrient: 'vertical',
  overflow: 'hidden',
  overflowWrap: 'anywhere',
});

/** SPEC §9's relative time, the same as in every list of the console, kept current while the popover is open. */
function useTimeAgo(): (when: string) => string {
  const { language } = useLanguage();
  const now = useNow(RELATIVE_TIME_INTERVAL);
  return (when) => formatRelativeTime(when, language, now);
}

function Failed({ onRetry }: { onRetry: () => void }) {
  const { t } = useTranslation();
  return (
    <Flex vertical align="center" gap={8} style={{ padding: 24 }}>
      <Typography.Text type="danger">{t('layout.header.notice.loadFailed')}</Typography.Text>
      <Button size="small" onClick={onRetry}>
        {t('layout.header.notice.retry')}
      </Button>
    </Flex>
  );
}

function ListFrame({
  loading,
  error,
  onRetry,
  empty,
  children,
}: {
  loading: boolean;
  error: boolean;
  onRetry: () => void;
  empty: string | null;
  children: ReactNode;
}) {
  if (loading) {
    return (
      <Flex justify="center" style={{ padding: 24 }}>
        <Spin />
      </Flex>
    );
  }
  if (error) return <Failed onRetry={onRetry} />;
  if (empty) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={empty} style={{ marginBlock: 16 }} />;
  return <ul style={{ listStyle: 'none', margin: 0, padding: 0, maxHeight: 360, overflowY: 'auto' }}>{children}</ul>;
}

function MessageRow({
  item,
  timeAgo,
  onRead,
}: {
  item: MessageItem;
  timeAgo: (when: string) => string;
  onRead: (id: number) => void;
}) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const unread = item.readAt === null;
  const read = () => unread && onRead(item.id);
  return (
    <li
      data-testid="message-item"
      data-unread={unread}
      role={unread ? 'button' : undefined}
      tabIndex={unread ? 0 : undefined}
      onClick={read}
      onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && read()}
      style={{
        padding: '10px 4px',
        borderBottom: `1px solid ${token.colorSplit}`,
        cursor: unread ? 'pointer' : undefined,
      }}
    >
      <Flex gap={8} align="flex-start">
        <Badge
          status={unread ? 'processing' : 'default'}
          title={unread ? t('layout.header.notice.unreadDot') : undefined}
          style={{ marginTop: 4, visibility: unread ? 'visible' : 'hidden' }}
        />
        <Flex vertical gap={2} style={{ minWidth: 0, flex: 1 }}>
          <Typography.Text strong={unread} type={unread ? undefined : 'secondary'} ellipsis>
            {item.title}
          </Typography.Text>
          {item.body && (
            <span style={{ ...clamp(2), color: token.colorTextSecondary, fontSize: token.fontSizeSM }}>
              {item.body}
            </span>
          )}
          <span style={{ fontSize: token.fontSizeSM, color: token.colorTextTertiary }}>{timeAgo(item.createdAt)}</span>
        </Flex>
      </Flex>
    </li>
  );
}

export default function NoticePanel({
  tab,
  onTab,
  unreadCount,
  onClose,
}: {
  tab: TabKey;
  onTab: (tab: TabKey) => void;
  unreadCount: number;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const navigate = useStableNavigate();
  const timeAgo = useTimeAgo();
  const messages = useMessages(true);
  const markRead = useMarkMessagesRead();
  const hasNoticePage = useSession((s) => !!s.routes && !!findRoute(s.routes, NOTICE_PAGE));

  const messageList = messages.data?.list ?? [];

  const items = [
    {
      key: 'notice',
      label: <NoticeTabLabel label={t('layout.header.notice.tabs.notice')} />,
      children: <NoticeTab timeAgo={timeAgo} onClose={onClose} />,
    },
    {
      key: 'email',
      label: (
        <Badge count={unreadCount} size="small" offset={[8, -2]}>
          <span>{t('layout.header.notice.tabs.email')}</span>
        </Badge>
      ),
      children: (
        <ListFrame
          loading={messages.isPending}
          error={messages.isError}
          onRetry={() => void messages.refetch()}
          empty={messageList.length ? null : t('layout.header.notice.emptyEmail')}
        >
          {messageList.map((m) => (
            <MessageRow key={m.id} item={m} timeAgo={timeAgo} onRead={(id) => markRead.mutate([id])} />
          ))}
        </ListFrame>
      ),
    },
  ];

  const showMarkAll = tab === 'email' && unreadCount > 0;
  return (
    <div data-testid="notice-popover">
      <Tabs activeKey={tab} onChange={(key) => onTab(key as TabKey)} items={items} size="small" centered />
      {(showMarkAll || hasNoticePage) && (
        <Flex justify="space-between" style={{ paddingTop: 8 }}>
          {showMarkAll ? (
            <Button size="small" type="link" loading={markRead.isPending} onClick={() => markRead.mutate(undefined)}>
              {t('layout.header.notice.markAllRead')}
            </Button>
          ) : (
            <span />
          )}
          {hasNoticePage && (
            <Button
              size="small"
              type="link"
              onClick={() => {
                onClose();
                navigate(NOTICE_PAGE);
              }}
            >
              {t('layout.header.notice.viewAll')}
            </Button>
          )}
        </Flex>
      )}
    </div>
  );
}
