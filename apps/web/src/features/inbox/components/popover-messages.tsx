import { Badge, Button, Empty, Flex, Spin, Typography, theme } from 'antd';
import type { CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { MessageItem } from '@cpc/contracts';
import { useLanguage } from '@/lib/i18n';
import { useMessages } from '@/lib/notice-api';
import { formatRelativeTime } from '@/lib/format/relative-time';
import { RELATIVE_TIME_INTERVAL, useNow } from '@/lib/use-now';
import { useReadAllMessages, useReadMessages } from '../api/inbox';
import { isConsolePath } from '../utils/kinds';
import { GroupTag } from './group-tag';

/** The full inbox page (menu `/message/messageIndex`). */
export const INBOX_PAGE = '/message/messageIndex';

const clamp2: CSSProperties = {
  display: '-webkit-box',
  WebkitLineClamp: 2,
  WebkitBoxOrient: 'vertical',
  overflow: 'hidden',
  overflowWrap: 'anywhere',
};

function Row({ item, onOpen }: { item: MessageItem; onOpen: (m: MessageItem) => void }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const { language } = useLanguage();
  const now = useNow(RELATIVE_TIME_INTERVAL);
  const unread = item.readAt === null;
  return (
    <li
      data-testid="message-item"
      data-unread={unread}
      role="button"
      tabIndex={0}
      onClick={() => onOpen(item)}
      onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && onOpen(item)}
      style={{ padding: '10px 4px', borderBottom: `1px solid ${token.colorSplit}`, cursor: 'pointer' }}
    >
      <Flex gap={8} align="flex-start">
        <Badge
          status={unread ? 'processing' : 'default'}
          title={unread ? t('inbox.unread') : undefined}
          style={{ marginTop: 4, visibility: unread ? 'visible' : 'hidden' }}
        />
        <Flex vertical gap={2} style={{ minWidth: 0, flex: 1 }}>
          <Typography.Text strong={unread} type={unread ? undefined : 'secondary'} ellipsis>
            {item.title}
          </Typography.Text>
          {item.body && (
            <span style={{ ...clamp2, color: token.colorTextSecondary, fontSize: token.fontSizeSM }}>{item.body}</span>
          )}
          <Flex gap={8} align="center" style={{ fontSize: token.fontSizeSM, color: token.colorTextTertiary }}>
            <GroupTag kind={item.kind} />
            <span>{formatRelativeTime(item.createdAt, language, now)}</span>
          </Flex>
        </Flex>
      </Flex>
    </li>
  );
}

/**
 * The bell popover's messages tab (issue 14): the newest messages of the user's inbox; a click marks one read and
 * opens its page when it has one; "mark all read" and "view all" (the inbox page) below.
 */
export function PopoverMessages({ unreadCount, onClose }: { unreadCount: number; onClose: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const messages = useMessages(true);
  const read = useReadMessages();
  const readAll = useReadAllMessages();
  const list = messages.data?.list ?? [];

  const go = (path: string) => {
    onClose();
    void navigate(path);
  };
  // a click reads it; one that leads somewhere opens its page (one that does not stays: its text is all there is)
  const open = (m: MessageItem) => {
    if (m.readAt === null) read.mutate([m.id]);
    if (isConsolePath(m.link)) go(m.link);
  };

  let body;
  if (messages.isPending) {
    body = (
      <Flex justify="center" style={{ padding: 24 }}>
        <Spin />
      </Flex>
    );
  } else if (messages.isError) {
    body = (
      <Flex vertical align="center" gap={8} style={{ padding: 24 }}>
        <Typography.Text type="danger">{t('inbox.popover.failed')}</Typography.Text>
        <Button size="small" onClick={() => void messages.refetch()}>
          {t('inbox.popover.retry')}
        </Button>
      </Flex>
    );
  } else if (!list.length) {
    body = (
      <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('inbox.popover.empty')} style={{ marginBlock: 16 }} />
    );
  } else {
    body = (
      <ul
        data-testid="popover-messages"
        style={{ listStyle: 'none', margin: 0, padding: 0, maxHeight: 360, overflowY: 'auto' }}
      >
        {list.map((m) => (
          <Row key={m.id} item={m} onOpen={open} />
        ))}
      </ul>
    );
  }

  return (
    <div>
      {body}
      <Flex justify="space-between" style={{ paddingTop: 8 }}>
        {unreadCount > 0 ? (
          <Button size="small" type="link" loading={readAll.isPending} onClick={() => readAll.mutate(undefined)}>
            {t('inbox.popover.readAll')}
          </Button>
        ) : (
          <span />
        )}
        <Button size="small" type="link" data-testid="inbox-view-all" onClick={() => go(INBOX_PAGE)}>
          {t('inbox.popover.viewAll')}
        </Button>
      </Flex>
    </div>
  );
}
