import { Alert, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AuthPanel } from '../components/auth-panel';
import { AuthSplitLayout } from '../components/auth-split-layout';
import { RegisterForm } from '../components/register-form';
import { pendingTicket } from '../api/social';

export default function RegisterPage() {
  const { t } = useTranslation();
  // a social identity waiting to be linked (the callback's "register"): the new account gets it
  const [pending] = useState(() => pendingTicket());
  return (
    <AuthSplitLayout>
      <AuthPanel padding="clamp(24px, 6vw, 32px) clamp(20px, 5vw, 32px) 24px">
        <Typography.Title level={3} style={{ marginTop: 0, marginBottom: 4 }}>
          {t('auth.register.title')}
        </Typography.Title>
        <Typography.Paragraph type="secondary" style={{ marginBottom: 24 }}>
          {t('auth.register.subtitle')}
        </Typography.Paragraph>
        {pending && (
          <Alert
            type="info"
            showIcon
            style={{ marginBottom: 20 }}
            message={t('auth.social.registerLinks', { name: pending.provider })}
          />
        )}
        <RegisterForm />
      </AuthPanel>
    </AuthSplitLayout>
  );
}
