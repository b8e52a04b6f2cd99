import { MessageOutlined } from '@ant-design/icons';
import { Button, Form, Input, Space, theme } from 'antd';
import type { FormRule } from 'antd';
import { useTranslation } from 'react-i18next';

interface SmsCodeFieldProps {
  rules: FormRule[];
  remaining: number;
  sending: boolean;
  onSend: () => void;
}

/** SMS code input with its "get code" button, which turns into "resend in N s" while counting down. */
export function SmsCodeField({ rules, remaining, sending, onSend }: SmsCodeFieldProps) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  return (
    <Form.Item label={t('auth.register.smsCode')} required>
      <Space.Compact block>
        <Form.Item name="smsCode" rules={rules} noStyle>
          <Input
            prefix={<MessageOutlined style={{ color: token.colorTextTertiary }} />}
            placeholder={t('auth.register.smsCodePlaceholder')}
            aria-label={t('auth.register.smsCode')}
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
          />
        </Form.Item>
        <Button onClick={onSend} loading={sending} disabled={remaining > 0} style={{ minWidth: 128 }}>
          {remaining > 0 ? t('auth.register.resendIn', { seconds: remaining }) : t('auth.register.getCode')}
        </Button>
      </Space.Compact>
    </Form.Item>
  );
}
