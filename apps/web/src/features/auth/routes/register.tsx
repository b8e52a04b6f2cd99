import { Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { AuthPanel } from '../components/auth-panel';
import { AuthSplitLayout } from '../components/auth-split-layout';
import { RegisterForm } from '../components/register-form';

export default function RegisterPage() {
  const { t } = useTranslation();
  return (
    <AuthSplitLayout>
      <AuthPanel padding="clamp(24px, 6vw, 32px) clamp(20px, 5vw, 32px) 24px">
        <Typography.Title level={3} style={{ marginTop: 0, marginBottom: 4 }}>
          {t('auth.register.title')}
        </Typography.Title>
        <Typography.Paragraph type="secondary" style={{ marginBottom: 24 }}>
          {t('auth.register.subtitle')}
        </Typography.Paragraph>
        <RegisterForm />
      </AuthPanel>
    </AuthSplitLayout>
  );
}
