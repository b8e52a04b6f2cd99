import { ReloadOutlined, SafetyCertificateOutlined } from '@ant-design/icons';
import { Flex, Form, Input, Spin, Tooltip, theme } from 'antd';
import type { FormRule } from 'antd';
import { useTranslation } from 'react-i18next';
import type { CaptchaResult } from '@cpc/contracts';
import { captchaSrc } from '../api/captcha';

interface CaptchaFieldProps {
  captcha: CaptchaResult | undefined;
  loading: boolean;
  failed: boolean;
  onRefresh: () => void;
  rules?: FormRule[];
  /** Show the field's label (forms with vertical labels); the login form relies on placeholders. */
  label?: boolean;
  size?: 'middle' | 'large';
}

/** Graphic captcha input with its image beside it; click the image to get another one. */
export function CaptchaField({ captcha, loading, failed, onRefresh, rules, label, size = 'large' }: CaptchaFieldProps) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const height = size === 'large' ? token.controlHeightLG : token.controlHeight;

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
        <Tooltip title={failed ? t('auth.captcha.loadFailed') : t('auth.captcha.refresh')}>
          <button
            type="button"
            onClick={onRefresh}
            aria-label={t('auth.captcha.refresh')}
            style={{
              flex: '0 0 120px',
              height,
              padding: 0,
              border: `1px solid ${token.colorBorder}`,
              borderRadius: token.borderRadiusLG,
              background: token.colorFillQuaternary,
              cursor: 'pointer',
              overflow: 'hidden',
              display: 'inline-flex',
              alignItems: 'center',
              justifyContent: 'center',
              color: token.colorTextTertiary,
            }}
          >
            {loading ? (
              <Spin size="small" />
            ) : captcha?.svg ? (
              <img
                src={captchaSrc(captcha.svg)}
                alt={t('auth.captcha.image')}
                draggable={false}
                style={{ width: '100%', height: '100%', objectFit: 'contain', display: 'block' }}
              />
            ) : (
              <ReloadOutlined />
            )}
          </button>
        </Tooltip>
      </Flex>
    </Form.Item>
  );
}
