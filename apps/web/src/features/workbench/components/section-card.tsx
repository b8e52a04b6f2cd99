import {
  ClockCircleOutlined,
  CustomerServiceOutlined,
  DisconnectOutlined,
  FieldTimeOutlined,
  FileExclamationOutlined,
  IdcardOutlined,
  InboxOutlined,
  MessageOutlined,
  MoneyCollectOutlined,
  NotificationOutlined,
  RightOutlined,
  SignalFilled,
} from '@ant-design/icons';
import { Badge, Card, Flex, Tag, Typography, theme } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { WorkbenchItem, WorkbenchSection, WorkbenchSectionKey } from '@cpc/contracts/workbench';
import { formatDateTime, formatRelativeTime } from '@/lib/format/relative-time';
import { useLanguage } from '@/lib/i18n';
import { SECTION_META, type SectionTone } from '../utils/sections';

const ICONS: Record<WorkbenchSectionKey, ReactNode> = {
  workOrderWaiting: <CustomerServiceOutlined />,
  workOrderUnread: <MessageOutlined />,
  simLow: <SignalFilled />,
  simExpiring: <FieldTimeOutlined />,
  deviceOffline: <DisconnectOutlined />,
  deviceFault: <FileExclamationOutlined />,
  notices: <NotificationOutlined />,
  identityWaiting: <IdcardOutlined />,
  workOrderUnassigned: <InboxOutlined />,
  workOrderOverdue: <ClockCircleOutlined />,
  refundPending: <MoneyCollectOutlined />,
};

/** One section of the workbench: what it is, how many, the first few items, each a link to its page. */
export function SectionCard({ section }: { section: WorkbenchSection }) {
  const { t } = useTranslation();
  const { language } = useLanguage();
  const { token } = theme.useToken();
  const meta = SECTION_META[section.key];
  const tone: Record<SectionTone, string> = {
    danger: token.colorError,
    warning: token.colorWarning,
    info: token.colorInfo,
  };
  const color = section.count > 0 ? tone[meta.tone] : token.colorTextTertiary;
  const when = (item: WorkbenchItem) => {
    // a device that never connected has no last-seen time: say so rather than nothing
    if (!item.at) return section.key === 'deviceOffline' ? t('workbench.neverSeen') : '';
    const at = new Date(item.at).getTime();
    const time = at > Date.now() ? formatDateTime(at) : formatRelativeTime(at, language);
    return t(`workbench.at.${section.key}`, { time });
  };
  const more = section.count - section.items.length;

  return (
    <Card
      variant="borderless"
      data-testid={`wb-section-${section.key}`}
      data-count={section.count}
      style={{ height: '100%' }}
      styles={{ body: { padding: 16 } }}
    >
      <Link
        to={section.link}
        data-testid={`wb-link-${section.key}`}
        style={{ color: 'inherit', display: 'block' }}
        aria-label={t('workbench.openAll', { name: t(`workbench.section.${section.key}`) })}
      >
        <Flex align="center" gap={10}>
          <span style={{ fontSize: 20, color }}>{ICONS[section.key]}</span>
          <Typography.Text strong style={{ flex: 1, minWidth: 0 }} ellipsis>
            {t(`workbench.section.${section.key}`)}
          </Typography.Text>
          <Badge
            count={section.count}
            showZero
            overflowCount={9999}
            color={section.count > 0 ? tone[meta.tone] : token.colorFillSecondary}
            style={section.count > 0 ? undefined : { color: token.colorTextSecondary }}
          />
          <RightOutlined style={{ color: token.colorTextTertiary, fontSize: 12 }} />
        </Flex>
      </Link>
      {section.items.length === 0 ? (
        <Typography.Text type="secondary" style={{ display: 'block', marginTop: 12, fontSize: token.fontSizeSM }}>
          {t(`workbench.none.${section.key}`)}
        </Typography.Text>
      ) : (
        <Flex vertical style={{ marginTop: 8 }}>
          {section.items.map((item) => (
            <Link
              key={item.id}
              to={item.link}
              data-testid={`wb-item-${section.key}`}
              style={{
                color: 'inherit',
                display: 'block',
                padding: '8px 0',
                borderTop: `1px solid ${token.colorBorderSecondary}`,
              }}
            >
              <Flex align="center" gap={8} style={{ minWidth: 0 }}>
                <Typography.Text ellipsis style={{ flex: 1, minWidth: 0 }}>
                  {item.title}
                </Typography.Text>
                {item.tag && meta.tags && (
                  <Tag style={{ marginInlineEnd: 0 }}>{t(`workbench.tag.${meta.tags}.${item.tag}`)}</Tag>
                )}
              </Flex>
              <Typography.Text type="secondary" ellipsis style={{ fontSize: token.fontSizeSM, display: 'block' }}>
                {[item.subtitle, when(item)].filter(Boolean).join(' · ')}
              </Typography.Text>
            </Link>
          ))}
          {more > 0 && (
            <Link to={section.link} style={{ fontSize: token.fontSizeSM, paddingTop: 4 }}>
              {t('workbench.more', { n: more })}
            </Link>
          )}
        </Flex>
      )}
    </Card>
  );
}
