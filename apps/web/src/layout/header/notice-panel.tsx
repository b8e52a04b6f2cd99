import { Badge, Button, Flex, Tabs } from 'antd';
import { useTranslation } from 'react-i18next';
import { useLanguage } from '../../lib/i18n';
import { findRoute } from '../../lib/menu-routes';
import { useMessages } from '../../lib/notice-api';
import { PopoverMessages } from '../../features/inbox/components/popover-messages';
import { useSession } from '../../lib/session';
import { useStableNavigate } from '../use-stable-navigate';
import { RELATIVE_TIME_INTERVAL, useNow } from '@/lib/use-now';
import { formatRelativeTime } from '../../lib/format/relative-time';
import { NOTICE_PAGE, type TabKey } from './notice-popover';
import { NoticeTab, NoticeTabLabel } from './notice-tab';

/** SPEC §9's relative time, the same as in every list of the console, kept current while the popover is open. */
function useTimeAgo(): (when: string) => string {
  const { language } = useLanguage();
  const now = useNow(RELATIVE_TIME_INTERVAL);
  return (when) => formatRelativeTime(when, language, now);
}

/**
 * The notice popover's content: the latest unread announcements (notice-tab.tsx) and the user's messages. A chunk of
 * its own, fetched when the bell is first opened: the first signed-in page draws only the bell.
 */
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
  // the messages tab's list is fetched with the popover, whichever tab opens first
  useMessages(true);
  const hasNoticePage = useSession((s) => !!s.routes && !!findRoute(s.routes, NOTICE_PAGE));

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
