import { Card, Typography, theme } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { AuthSplitLayout } from '../components/auth-split-layout';
import { LoginForm } from '../components/login-form';
import { greetingNow } from '../utils/greeting';

export default function LoginPage() {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  // computed once per visit: the greeting should not flip while someone is typing
  const greeting = useMemo(() => greetingNow(), []);

  return (
    <AuthSplitLayout>
      <Card variant="borderless" style={{ boxShadow: token.boxShadowTertiary }} styles={{ body: { padding: 'clamp(24px, 6vw, 36px) clamp(20px, 5vw, 32px) 28px' } }}>
        <Typography.Title level={3} style={{ marginTop: 0, marginBottom: 4 }}>
          {t(`auth.greeting.${greeting}`)}
        </Typography.Title>
        <Typography.Paragraph type="secondary" style={{ marginBottom: 28 }}>
          {t('auth.login.welcome', { title: t('auth.brand.title') })}
        </Typography.Paragraph>
        <LoginForm />
      </Card>
    </AuthSplitLayout>
  );
}
