import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { AuthPanel } from '../components/auth-panel';
import { AuthText, AuthTitle } from '../components/auth-typography';
import { BrandMark } from '../components/brand-mark';
import { LanguageToggle } from '../components/language-toggle';
import { LoginForm } from '../components/login-form';
import { greetingNow } from '../utils/greeting';

/** The alternative sign-in page: one centred card on the theme's gradient. */
export default function Login88121Page() {
  const { t } = useTranslation();
  const greeting = useMemo(() => greetingNow(), []);
  const year = new Date().getFullYear();

  return (
    <div className="lite auth-alt">
      <div className="auth-alt-top">
        <BrandMark inverse size={32} />
        <LanguageToggle />
      </div>
      <main className="auth-alt-body">
        <AuthPanel className="auth-alt-card">
          <div className="auth-alt-head">
            <AuthText secondary>{t(`auth.greeting.${greeting}`)}</AuthText>
            <AuthTitle level={3} style={{ margin: '4px 0' }}>
              {t('auth.login.altTitle')}
            </AuthTitle>
            <AuthText secondary>{t('auth.login.altSubtitle')}</AuthText>
          </div>
          <LoginForm />
        </AuthPanel>
      </main>
      <div className="auth-alt-footer">{t('auth.brand.copyright', { year })}</div>
    </div>
  );
}
