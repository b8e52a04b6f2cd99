import { Flex, Typography, theme } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { AuthPanel } from '../components/auth-panel';
import { BrandMark } from '../components/brand-mark';
import { LanguageToggle } from '../components/language-toggle';
import { LoginForm } from '../components/login-form';
import { greetingNow } from '../utils/greeting';

/** The alternative sign-in page: one centred card on the theme's gradient. */
export default function Login88121Page() {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const greeting = useMemo(() => greetingNow(), []);
  const year = new Date().getFullYear();

  return (
    <Flex
      vertical
      style={{
        minHeight: '100vh',
        padding: 16,
        background: `radial-gradient(circle at 15% 20%, ${token.colorPrimaryBgHover} 0%, transparent 45%),
          radial-gradient(circle at 85% 80%, ${token.colorPrimaryBorder} 0%, transparent 40%),
          linear-gradient(135deg, ${token.colorPrimary} 0%, ${token.colorPrimaryActive} 100%)`,
      }}
    >
      <Flex justify="space-between" align="center" style={{ padding: '8px 8px 0' }}>
        <BrandMark inverse size={32} />
        <LanguageToggle />
      </Flex>
      <Flex flex={1} align="center" justify="center" style={{ padding: '24px 0' }}>
        <AuthPanel
          padding="36px 28px 28px"
          style={{ width: '100%', maxWidth: 420, boxShadow: token.boxShadowSecondary, borderRadius: token.borderRadiusLG * 2 }}
        >
          <Flex vertical align="center" style={{ marginBottom: 24, textAlign: 'center' }}>
            <Typography.Text type="secondary">{t(`auth.greeting.${greeting}`)}</Typography.Text>
            <Typography.Title level={3} style={{ margin: '4px 0' }}>
              {t('auth.login.altTitle')}
            </Typography.Title>
            <Typography.Text type="secondary">{t('auth.login.altSubtitle')}</Typography.Text>
          </Flex>
          <LoginForm />
        </AuthPanel>
      </Flex>
      <Typography.Text style={{ textAlign: 'center', color: token.colorTextLightSolid, opacity: 0.75, fontSize: token.fontSizeSM }}>
        {t('auth.brand.copyright', { year })}
      </Typography.Text>
    </Flex>
  );
}
