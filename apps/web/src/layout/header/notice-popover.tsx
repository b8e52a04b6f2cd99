import { BellOutlined } from '@ant-design/icons';
import { Badge, Button, Flex, Popover, Spin, Tooltip } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { Suspense, lazy, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLiveNoticeCount, useNoticeUnreadCount, useUnreadCount } from '../../lib/notice-api';
import { useLayoutSettings } from '../layout-settings';
import { useInboxLive } from '../../features/inbox/components/use-inbox-live';

export type TabKey = 'notice' | 'email';

/** The announcements page, linked as "view all" once the user's menu has it. */
export const NOTICE_PAGE = '/notice/noticeIndex';
const POPOVER_WIDTH = 360;

const NoticePanel = lazy(() => import('./notice-panel'));

const panelLoading = (
  <Flex justify="center" style={{ padding: 24 }}>
    <Spin />
  </Flex>
);

function NoticeBell() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const unread = useUnreadCount();
  // new messages, and reads elsewhere, arrive over the live-event channel (the message centre)
  useInboxLive();
  // announcements are read per user on the server: opening one reads it; the bell counts them with the messages
  const unreadNotices = useNoticeUnreadCount();
  useLiveNoticeCount();
  const [open, setOpen] = useState(false);
  const [tab, setTab] = useState<TabKey>('notice');

  const unreadCount = unread.data?.count ?? 0;
  const badge = (unreadNotices.data?.count ?? 0) + unreadCount;

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
