import { LinkOutlined } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Dropdown, Empty, Flex, Popconfirm, Skeleton, Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import type { LinkedIdentity, SocialProvider } from '@cpc/contracts';
import { formatDateTime } from '@/lib/format/relative-time';
import { get, request } from '@/lib/request';

const IDENTITIES_KEY = ['person', 'identities'] as const;

/**
 * The personal centre's "Linked accounts" card: the social-login identities linked to this account (provider,
 * name or e-mail, when), each removable; "link another" starts a flow whose callback links instead of signing in.
 * With no provider configured on the server the card is not shown.
 */
export function LinkedAccounts() {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const { message } = App.useApp();
  const client = useQueryClient();
  const providers = useQuery({
    queryKey: ['person', 'socialProviders'],
    queryFn: () => get<SocialProvider[]>('/socialLogin/providers'),
    staleTime: 5 * 60_000,
  });
  const identities = useQuery({
    queryKey: IDENTITIES_KEY,
    queryFn: () => get<LinkedIdentity[]>('/socialLogin/identities'),
  });
  const remove = useMutation({
    mutationFn: (id: number) => request<null>({ url: `/socialLogin/identities/${id}`, method: 'delete' }),
    onSettled: () => client.invalidateQueries({ queryKey: IDENTITIES_KEY }),
  });
  const link = useMutation({
    mutationFn: (provider: string) =>
      request<{ url: string }>({ url: '/socialLogin/identities', method: 'post', data: { provider } }),
    onSuccess: ({ url }) => window.location.assign(url),
  });

  const list = identities.data ?? [];
  const configured = providers.data ?? [];
  if (!configured.length && !list.length) return null;

  const unlink = async (id: number) => {
    try {
      await remove.mutateAsync(id);
    } catch {
      return;
    }
    message.success(t('user.linked.removed'));
  };

  return (
    <Card
      variant="borderless"
      title={t('user.linked.title')}
      data-testid="linked-accounts"
      extra={
        configured.length > 0 && (
          <Dropdown
            trigger={['click']}
            menu={{
              items: configured.map((p) => ({ key: p.id, label: p.name })),
              onClick: ({ key }) => link.mutate(key),
            }}
          >
            <Button size="small" icon={<LinkOutlined />} loading={link.isPending}>
              {t('user.linked.linkAnother')}
            </Button>
          </Dropdown>
        )
      }
    >
      {identities.isPending ? (
        <Skeleton active paragraph={{ rows: 2 }} />
      ) : list.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('user.linked.empty')} />
      ) : (
        <Flex vertical role="list" gap={0}>
          {list.map((i, n) => (
            <Flex
              key={i.id}
              role="listitem"
              data-testid="linked-row"
              align="center"
              gap={12}
              wrap
              style={{ padding: '10px 0', borderTop: n ? `1px solid ${token.colorBorderSecondary}` : undefined }}
            >
              <Flex vertical style={{ flex: '1 1 160px', minWidth: 0 }}>
                <Typography.Text strong>{i.providerName}</Typography.Text>
                <Typography.Text type="secondary" ellipsis style={{ fontSize: token.fontSizeSM }}>
                  {[i.name, i.email].filter(Boolean).join(' · ') || i.subject}
                </Typography.Text>
                <Typography.Text type="secondary" style={{ fontSize: token.fontSizeSM }}>
                  {t('user.linked.linkedAt', { time: formatDateTime(i.createdAt) })}
                </Typography.Text>
              </Flex>
              <Popconfirm
                title={t('user.linked.confirm', { name: i.providerName })}
                description={t('user.linked.confirmContent')}
                okText={t('user.subAccount.confirm.ok')}
                cancelText={t('user.subAccount.confirm.cancel')}
                onConfirm={() => unlink(i.id)}
              >
                <Button danger size="small" loading={remove.isPending && remove.variables === i.id}>
                  {t('user.linked.remove')}
                </Button>
              </Popconfirm>
            </Flex>
          ))}
        </Flex>
      )}
    </Card>
  );
}
