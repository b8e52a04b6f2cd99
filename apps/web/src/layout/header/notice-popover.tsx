import { BellOutlined } from '@ant-design/icons';
import { Badge, Button, Flex, Popover, Spin, Tooltip } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { Suspense, lazy, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNotices, useUnreadCount } from '../../lib/notice-api';
import { useSession } from '../../lib/session';
import { readStorage, writeStorage } from '../../lib/storage';
import { useLayoutSettings } from '../layout-settings';
import { useInboxLive } from '../../features/inbox/components/use-inbox-live';

export type TabKey = 'notice' | 'email';

/** The notices page, linked as "view all" once the user's menu has it. */
export const NOTICE_PAGE = '/notice';
const POPOVER_WIDTH = 360;

/** Notices carry no per-user read state on the server: the newest one this user has looked at is remembered here. */
const seenKey = (username: string) => `notice-seen-at:${username}`;

const NoticePanel = lazy(() => import('./notice-panel'));

const panelLoading = (
  <Flex justify="center" style={{ padding: 24 }}>
    <Spin />
  </Flex>
);

function NoticeBell() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const username = useSession((s) => s.username);
  const notices = useNotices();
  const unread = useUnreadCount();
  // new messages, and reads elsewhere, arrive over the live-event channel (the message centre)
  useInboxLive();
  const [open, setOpen] = useState(false);
  const [tab, setTab] = useState<TabKey>('notice');
  const [seenAt, setSeenAt] = useState(() => readStorage('localStorage', seenKey(username)) ?? '');

  useEffect(() => setSeenAt(readStorage('localStorage', seenKey(username)) ?? ''), [username]);

  // ISO timestamps of one format compare as strings
  const newest = notices.data?.list.reduce((max, n) => (n.publishedAt > max ? n.publishedAt : max), '') ?? '';
  const unseen = notices.data?.list.filter((n) => n.publishedAt > seenAt).length ?? 0;
  const unreadCount = unread.data?.count ?? 0;
  const badge = unseen + unreadCount;

  // looking at the notices tab is reading them
  useEffect(() => {
    if (open && tab === 'notice' && newest > seenAt) {
      writeStorage('localStorage', seenKey(username), newest);
      setSeenAt(newest);
    }
  }, [open, tab, newest, seenAt, username]);

  const onOpenChange = (next: boolean) => {
    setOpen(next);
    if (next) {
      // what the poll has not fetched yet
      void client.invalidateQueries({ queryKey: ['notice'] });
      void client.invalidateQueries({ queryKey: ['message'] });
    }
  };

  const label = badge ? t('layout.header.notice.buttonUnread', { count: badge }) : t('layout.header.notice.button');
  return (
    <Popover
      trigger="click"
      // centred with shifting keeps it on screen at phone width, where a corner placement overflows
      placement="bottom"
      open={open}
      onOpenChange={onOpenChange}
      destroyOnHidden
      styles={{ container: { width: `min(${POPOVER_WIDTH}px, calc(100vw - 16px))`, paddingTop: 4 } }}
      content={
        <Suspense fallback={panelLoading}>
          <NoticePanel tab={tab} onTab={setTab} unreadCount={unreadCount} onClose={() => setOpen(false)} />
        </Suspense>
      }
    >
      <Tooltip title={open ? undefined : t('layout.header.notice.button')}>
        <Button type="text" aria-label={label} data-testid="notice-bell">
          <Badge count={badge} size="small" offset={[2, -2]}>
            <BellOutlined style={{ fontSize: 16 }} />
          </Badge>
        </Button>
      </Tooltip>
    </Popover>
  );
}

/** The bell with its notice popover (SPEC §2): published notices, and the user's own messages ("mail"). */
export function NoticePopover() {
  const enabled = useLayoutSettings((s) => s.showNotice);
  return enabled ? <NoticeBell /> : null;
}
