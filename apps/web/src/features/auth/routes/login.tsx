import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { AuthPanel } from '../components/auth-panel';
import { AuthSplitLayout } from '../components/auth-split-layout';
import { AuthText, AuthTitle } from '../components/auth-typography';
import { LoginForm } from '../components/login-form';
import { SocialButtons } from '../components/social-buttons';
import { greetingNow } from '../utils/greeting';

export default function LoginPage() {
  const { t } = useTranslation();
  // computed once per visit: the greeting should not flip while someone is typing
  const greeting = useMemo(() => greetingNow(), []);

  return (
    <AuthSplitLayout>
      <AuthPanel padding="clamp(24px, 6vw, 36px) clamp(20px, 5vw, 32px) 28px">
        <AuthTitle level={3} style={{ marginTop: 0, marginBottom: 4 }}>
          {t(`auth.greeting.${greeting}`)}
        </AuthTitle>
        <AuthText paragraph secondary style={{ marginBottom: 28 }}>
          {t('auth.login.welcome', { title: t('auth.brand.title') })}
        </AuthText>
        <LoginForm />
        <SocialButtons />
      </AuthPanel>
    </AuthSplitLayout>
  );
}
