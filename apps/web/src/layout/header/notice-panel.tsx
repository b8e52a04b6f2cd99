import { MailOutlined, PushpinOutlined } from '@ant-design/icons';
import { Badge, Button, Empty, Flex, Spin, Tabs, Tag, Typography, theme } from 'antd';
import { useMemo, type CSSProperties, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { NoticeItem } from '@cpc/contracts';
import { useLanguage } from '../../lib/i18n';
import { findRoute } from '../../lib/menu-routes';
import { useMessages, useNotices } from '../../lib/notice-api';
import { PopoverMessages } from '../../features/inbox/components/popover-messages';
import { useSession } from '../../lib/session';
import { useStableNavigate } from '../use-stable-navigate';
import { sanitizeHtml } from '../../lib/sanitize-html';
import { RELATIVE_TIME_INTERVAL, useNow } from '@/lib/use-now';
import { formatRelativeTime } from '../../lib/format/relative-time';
import { NOTICE_PAGE, type TabKey } from './notice-popover';

/**
 * The notice popover's content: the notices (their HTML cleaned by DOMPurify) and the user's messages. A chunk of
 * its own, fetched when the bell is first opened: the first signed-in page draws only the bell.
 */
const clamp = (lines: number): CSSProperties => ({
  display: '-webkit-box',
  WebkitLineClamp: lines,
  WebkitBoxOrient: 'vertical',
  overflow: 'hidden',
  overflowWrap: 'anywhere',
});

const isImageUrl = (src: string) => /^(https?:\/\/|\/)/i.test(src);

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

function NoticeRow({ item, timeAgo }: { item: NoticeItem; timeAgo: (when: string) => string }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const html = useMemo(() => sanitizeHtml(item.notice), [item.notice]);
  return (
    <li data-testid="notice-item" style={{ padding: '10px 4px', borderBottom: `1px solid ${token.colorSplit}` }}>
      <Flex gap={10} align="flex-start">
        {item.image && isImageUrl(item.image) && (
          <img
            src={item.image}
            alt=""
            width={44}
            height={44}
            style={{ objectFit: 'cover', borderRadius: token.borderRadius, flex: 'none' }}
          />
        )}
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
          {/* the server has no API that writes notices (operators insert them): sanitizeHtml's allow-list is the guard */}
          <div
            style={{ ...clamp(3), color: token.colorTextSecondary, fontSize: token.fontSizeSM }}
            dangerouslySetInnerHTML={{ __html: html }}
          />
          <Flex gap={8} style={{ fontSize: token.fontSizeSM, color: token.colorTextTertiary }}>
            <span>{timeAgo(item.publishedAt)}</span>
            {item.email && (
              <span>
                <MailOutlined /> {item.email}
              </span>
            )}
          </Flex>
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
  const notices = useNotices();
  // the messages tab's list is fetched with the popover, whichever tab opens first
  useMessages(true);
  const hasNoticePage = useSession((s) => !!s.routes && !!findRoute(s.routes, NOTICE_PAGE));

  const noticeList = notices.data?.list ?? [];

  const items = [
    {
      key: 'notice',
      label: t('layout.header.notice.tabs.notice'),
      children: (
        <ListFrame
          loading={notices.isPending}
          error={notices.isError}
          onRetry={() => void notices.refetch()}
          empty={noticeList.length ? null : t('layout.header.notice.emptyNotice')}
        >
          {noticeList.map((n) => (
            <NoticeRow key={n.id} item={n} timeAgo={timeAgo} />
          ))}
        </ListFrame>
      ),
    },
    {
      key: 'email',
      label: (
        <Badge count={unreadCount} size="small" offset={[8, -2]}>
          <span>{t('layout.header.notice.tabs.email')}</span>
        </Badge>
      ),
      // the message centre's newest messages (features/inbox), with its own "mark all read" and "view all"
      children: <PopoverMessages unreadCount={unreadCount} onClose={onClose} />,
    },
  ];

  return (
    <div data-testid="notice-popover">
      <Tabs activeKey={tab} onChange={(key) => onTab(key as TabKey)} items={items} size="small" centered />
      {tab === 'notice' && hasNoticePage && (
        <Flex justify="space-between" style={{ paddingTop: 8 }}>
          <span />
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
