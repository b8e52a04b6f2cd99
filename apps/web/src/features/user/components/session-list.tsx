import { DesktopOutlined, MobileOutlined, ReloadOutlined } from '@ant-design/icons';
import { App, Button, Empty, Flex, Popconfirm, Skeleton, Tag, Tooltip, Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import type { SessionView } from '@cpc/contracts';
import { formatDateTime, formatRelativeTime } from '@/lib/format/relative-time';
import { useLanguage } from '@/lib/i18n';
import { useRevokeSession, useSessions } from '../api/profile';
import { parseUserAgent } from '../utils/user-agent';

/** The user's signed-in browsers: this one first, each other one with "sign out". */
export function SessionList() {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const { language } = useLanguage();
  const { message } = App.useApp();
  const sessions = useSessions();
  const revoke = useRevokeSession();

  const signOut = async (s: SessionView) => {
    try {
      await revoke.mutateAsync(s.id);
    } catch {
      return;
    }
    message.success(t('user.sessions.done'));
  };

  const describe = (s: SessionView) => {
    const agent = parseUserAgent(s.userAgent);
    const browser = agent.browser
      ? t('user.sessions.browser', { browser: agent.browser, version: agent.version }).trim()
      : t('user.sessions.unknownBrowser');
    return { agent, title: t('user.sessions.onSystem', { browser, os: agent.os || t('user.sessions.unknownOs') }) };
  };

  const list = sessions.data ?? [];
  return (
    <Flex vertical gap={12}>
      <Flex justify="space-between" align="flex-start" gap={12}>
        <Typography.Text type="secondary">{t('user.sessions.description')}</Typography.Text>
        <Tooltip title={t('user.sessions.refresh')}>
          <Button
            icon={<ReloadOutlined />}
            aria-label={t('user.sessions.refresh')}
            loading={sessions.isFetching}
            onClick={() => void sessions.refetch()}
          />
        </Tooltip>
      </Flex>
      {sessions.isPending ? (
        <Skeleton active />
      ) : (
        <Flex
          vertical
          role="list"
          style={{ border: `1px solid ${token.colorBorderSecondary}`, borderRadius: token.borderRadiusLG }}
        >
          {list.map((s, i) => {
            const { agent, title } = describe(s);
            return (
              <Flex
                key={s.id}
                role="listitem"
                data-testid="session-row"
                data-current={s.current}
                align="center"
                gap={12}
                wrap
                style={{ padding: '12px 16px', borderTop: i ? `1px solid ${token.colorBorderSecondary}` : undefined }}
              >
                <span style={{ fontSize: 24, color: s.current ? token.colorPrimary : token.colorTextSecondary }}>
                  {agent.mobile ? <MobileOutlined /> : <DesktopOutlined />}
                </span>
                <Flex vertical style={{ flex: '1 1 220px', minWidth: 0 }}>
                  <Flex align="center" gap={8} wrap>
                    <Typography.Text strong>{title}</Typography.Text>
                    {s.current && <Tag color="success">{t('user.sessions.current')}</Tag>}
                  </Flex>
                  <Typography.Text
                    type="secondary"
                    style={{ fontSize: token.fontSizeSM }}
                    title={formatDateTime(s.createdAt)}
                  >
                    {[
                      t('user.sessions.ip', { ip: s.ip || '-' }),
                      t('user.sessions.signedIn', { time: formatRelativeTime(s.createdAt, language) }),
                      t('user.sessions.lastActive', { time: formatRelativeTime(s.lastActiveAt, language) }),
                    ].join(' · ')}
                  </Typography.Text>
                </Flex>
                {!s.current && (
                  <Popconfirm
                    title={t('user.sessions.confirm')}
                    description={t('user.sessions.confirmContent')}
                    okText={t('user.subAccount.confirm.ok')}
                    cancelText={t('user.subAccount.confirm.cancel')}
                    onConfirm={() => signOut(s)}
                  >
                    <Button danger size="small" loading={revoke.isPending && revoke.variables === s.id}>
                      {t('user.sessions.signOut')}
                    </Button>
                  </Popconfirm>
                )}
              </Flex>
            );
          })}
          {list.length <= 1 && (
            <Empty
              image={Empty.PRESENTED_IMAGE_SIMPLE}
              description={t('user.sessions.empty')}
              style={{
                margin: '12px 0',
                borderTop: list.length ? `1px solid ${token.colorBorderSecondary}` : undefined,
                paddingTop: 12,
              }}
            />
          )}
        </Flex>
      )}
    </Flex>
  );
}
