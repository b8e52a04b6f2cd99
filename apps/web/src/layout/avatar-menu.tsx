import { DownOutlined, LogoutOutlined, UserOutlined } from '@ant-design/icons';
import { Avatar, Dropdown, Flex, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { LOGIN_PATH } from '../config/settings';
import { logout } from '../lib/session-api';
import { useSession } from '../lib/session';

const PERSON_INFO_PATH = '/person/info';

/** The avatar dropdown of SPEC §2: personal info and logout. */
export function AvatarMenu({ compact = false }: { compact?: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const username = useSession((s) => s.username);
  const avatar = useSession((s) => s.userInfo?.avatar);

  const signOut = async () => {
    // the local session ends even when the server cannot be told
    await logout().catch(() => undefined);
    useSession.getState().reset();
    navigate(LOGIN_PATH, { replace: true });
  };

  return (
    <Dropdown
      trigger={['click']}
      menu={{
        items: [
          { key: 'info', icon: <UserOutlined />, label: t('layout.personalInfo') },
          { type: 'divider' },
          { key: 'logout', icon: <LogoutOutlined />, label: t('layout.logout') },
        ],
        onClick: ({ key }) => {
          if (key === 'info') navigate(PERSON_INFO_PATH);
          else void signOut();
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
