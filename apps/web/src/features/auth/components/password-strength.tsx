import { Flex, Progress, Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { passwordStrength } from '../utils/rules';

/** Three-step meter under the registration password. */
export function PasswordStrength({ value }: { value: string }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const level = passwordStrength(value);
  if (level === 0) return null;
  const look = {
    1: { color: token.colorError, label: t('auth.register.strength.weak') },
    2: { color: token.colorWarning, label: t('auth.register.strength.medium') },
    3: { color: token.colorSuccess, label: t('auth.register.strength.strong') },
  }[level];
  return (
    <Flex align="center" gap={8} style={{ marginTop: 6 }} aria-live="polite">
      <Progress
        steps={3}
        percent={Math.round((level / 3) * 100)}
        showInfo={false}
        strokeColor={look.color}
        size={[36, 6]}
        aria-label={t('auth.register.strength.label')}
      />
      <Typography.Text style={{ color: look.color, fontSize: token.fontSizeSM }}>
        {t('auth.register.strength.text', { level: look.label })}
      </Typography.Text>
    </Flex>
  );
}
