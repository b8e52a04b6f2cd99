import { LogoutOutlined } from '@ant-design/icons';
import { Button, Flex, Grid, Typography, theme } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useLogout } from '../hooks/use-logout';
import { BrandMark } from './brand-mark';
import { LanguageToggle } from './language-toggle';

/** The identity page sits outside the main layout (SPEC §4): a slim header with the mark and a logout. */
export function AuthenticateFrame({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const screens = Grid.useBreakpoint();
  const { logout, pending } = useLogout();
  const year = new Date().getFullYear();

  return (
    <Flex vertical style={{ minHeight: '100vh', background: token.colorBgLayout }}>
      <Flex
        component="header"
        justify="space-between"
        align="center"
        gap={12}
        style={{
          height: 64,
          padding: screens.md ? '0 32px' : '0 16px',
          background: token.colorBgContainer,
          borderBottom: `1px solid ${token.colorBorderSecondary}`,
          position: 'sticky',
          top: 0,
          zIndex: 10,
        }}
      >
        <BrandMark size={32} />
        <Flex align="center" gap={screens.sm ? 16 : 8}>
          <LanguageToggle />
          <Button type="text" icon={<LogoutOutlined />} loading={pending} onClick={() => void logout()}>
            {screens.sm ? t('auth.authenticate.logout') : null}
          </Button>
        </Flex>
      </Flex>
      <Flex
        vertical
        flex={1}
        style={{ width: '100%', maxWidth: 920, margin: '0 auto', padding: screens.md ? '32px 24px' : '20px 12px' }}
      >
        <Typography.Title level={3} style={{ marginTop: 0, marginBottom: 4 }}>
          {t('auth.authenticate.title')}
        </Typography.Title>
        <Typography.Paragraph type="secondary">{t('auth.authenticate.subtitle')}</Typography.Paragraph>
        {children}
      </Flex>
      <Typography.Text
        type="secondary"
        style={{ textAlign: 'center', padding: '8px 16px 24px', fontSize: token.fontSizeSM }}
      >
        {t('auth.brand.copyright', { year })}
      </Typography.Text>
    </Flex>
  );
}
