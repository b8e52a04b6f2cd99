import { SafetyCertificateOutlined } from '@ant-design/icons';
import { Flex, Form, Input, theme } from 'antd';
import type { FormRule } from 'antd';
import { useTranslation } from 'react-i18next';
import type { CaptchaResult } from '@cpc/contracts';
import { CaptchaImage } from './captcha-image';

interface CaptchaFieldProps {
  captcha: CaptchaResult | undefined;
  loading: boolean;
  failed: boolean;
  onRefresh: () => void;
  rules?: FormRule[];
  /** Show the field's label (forms with vertical labels). */
  label?: boolean;
  size?: 'middle' | 'large';
}

/** The graphic captcha of an antd form: its input with the image beside it. */
export function CaptchaField({ captcha, loading, failed, onRefresh, rules, label, size = 'large' }: CaptchaFieldProps) {
  const { t } = useTranslation();
  const { token } = theme.useToken();

  return (
    <Form.Item label={label ? t('auth.captcha.label') : undefined} required={label} style={{ marginBottom: 0 }}>
      <Flex gap={8} align="flex-start">
        <Form.Item name="captcha" rules={rules} style={{ flex: 1, minWidth: 0 }}>
          <Input
            size={size}
            maxLength={16}
            autoComplete="off"
            prefix={<SafetyCertificateOutlined style={{ color: token.colorTextTertiary }} />}
            placeholder={t('auth.captcha.placeholder')}
            aria-label={t('auth.captcha.label')}
          />
        </Form.Item>
        <CaptchaImage captcha={captcha} loading={loading} failed={failed} onRefresh={onRefresh} size={size} />
      </Flex>
    </Form.Item>
  );
}
