import {
  DownOutlined,
  IdcardOutlined,
  LogoutOutlined,
  SettingOutlined,
  TeamOutlined,
  UserOutlined,
} from '@ant-design/icons';
import { Avatar, Dropdown, Flex, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSession } from '../lib/session';
import { useSignOut } from './header/sign-out';
import { useStableNavigate } from './use-stable-navigate';

/** The pages of the avatar dropdown (SPEC §2), keyed by their path. */
const PAGES = [
  { path: '/person/info', icon: <IdcardOutlined />, title: 'layout.personalInfo' },
  { path: '/setting/personalCenter', icon: <SettingOutlined />, title: 'route.personalCenter' },
  { path: '/person/subAccount', icon: <TeamOutlined />, title: 'route.subAccount' },
] as const;
const LOGOUT = 'logout';

/** The avatar dropdown of SPEC §2: personal info, personal centre, sub-accounts and logout. */
export function AvatarMenu({ compact = false }: { compact?: boolean }) {
  const { t } = useTranslation();
  const navigate = useStableNavigate();
  const signOut = useSignOut();
  const username = useSession((s) => s.username);
  const avatar = useSession((s) => s.userInfo?.avatar);

  return (
    <Dropdown
      trigger={['click']}
      menu={{
        items: [
          ...PAGES.map((p) => ({ key: p.path, icon: p.icon, label: t(p.title) })),
          { type: 'divider' as const },
          { key: LOGOUT, icon: <LogoutOutlined />, label: t('layout.logout'), danger: true },
        ],
        onClick: ({ key }) => {
          if (key === LOGOUT) void signOut();
          else navigate(key);
        },
      }}
    >
      <Flex align="center" gap={8} style={{ cursor: 'pointer', paddingInline: 8 }} data-testid="avatar-menu">
        <Avatar size="small" src={avatar || undefined} icon={<UserOutlined />} />
        {!compact && <Typography.Text>{username}</Typography.Text>}
        <DownOutlined style={{ fontSize: 10 }} />
      </Flex>
    </Dropdown>
  );
}
