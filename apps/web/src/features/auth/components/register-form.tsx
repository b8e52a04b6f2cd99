import { BankOutlined, LockOutlined, MobileOutlined, UserOutlined } from '@ant-design/icons';
import { useMutation } from '@tanstack/react-query';
import { Button, Flex, Form, Input, Segmented, Typography, theme } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import type { AccountType } from '@cpc/contracts';
import { SMS_RESEND_SECONDS, TOKEN_NAME } from '@cpc/contracts/constants';
import { AUTHENTICATE_PATH } from '@/config/settings';
import { messageApi } from '@/lib/feedback';
import { useSession } from '@/lib/session';
import { register } from '../api/register';
import { sendSmsCode } from '../api/sms';
import { useCaptchaControl } from '../hooks/use-captcha-control';
import { useCountdown } from '../hooks/use-countdown';
import { toFormFieldErrors } from '../utils/field-errors';
import { checkConfirm, checks, toRule } from '../utils/rules';
import { CaptchaField } from './captcha-field';
import { PasswordStrength } from './password-strength';
import { SmsCodeField } from './sms-code-field';
import { useFormLanguage } from '@/lib/use-form-language';

interface RegisterValues {
  type: AccountType;
  username: string;
  mobile: string;
  captcha?: string;
  smsCode: string;
  password: string;
  confirmPassword: string;
}

const SERVER_FIELDS = ['type', 'username', 'mobile', 'captcha', 'smsCode', 'password', 'confirmPassword'] as const;

export function RegisterForm() {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const navigate = useNavigate();
  const applyLogin = useSession((s) => s.applyLogin);
  const [form] = Form.useForm<RegisterValues>();
  useFormLanguage(form);
  const captcha = useCaptchaControl(form);
  const countdown = useCountdown();
  const [sending, setSending] = useState(false);
  const type = Form.useWatch('type', form) ?? 'individual';
  const password = Form.useWatch('password', form) ?? '';
  const mutation = useMutation({ mutationFn: register });

  // The captcha guards the SMS send only, so it is checked here rather than on submit.
  const onSendCode = async () => {
    try {
      await form.validateFields(['mobile']);
    } catch {
      return;
    }
    const typed = form.getFieldValue('captcha');
    const problem = captcha.enabled ? checks.captcha(typed) : null;
    if (problem) {
      form.setFields([{ name: 'captcha', errors: [t(problem)] }]);
      return;
    }
    setSending(true);
    try {
      const { countdown: seconds } = await sendSmsCode({
        mobile: String(form.getFieldValue('mobile')).trim(),
        purpose: 'register',
        ...captcha.payload(typed),
      });
      countdown.start(seconds > 0 ? seconds : SMS_RESEND_SECONDS);
      messageApi().success(t('auth.register.codeSent'));
    } catch (err) {
      form.setFields(toFormFieldErrors(err, ['mobile', 'captcha'] as const, t));
    } finally {
      setSending(false);
      // a captcha is good for one send; the next one needs a new picture
      captcha.refresh();
    }
  };

  const onFinish = async (v: RegisterValues) => {
    let result: Awaited<ReturnType<typeof register>>;
    try {
      result = await mutation.mutateAsync({
        type: v.type,
        username: v.username.trim(),
        mobile: v.mobile.trim(),
        smsCode: v.smsCode.trim(),
        password: v.password,
        confirmPassword: v.confirmPassword,
      });
    } catch (err) {
      const errors = toFormFieldErrors(err, SERVER_FIELDS, t);
      if (errors.length) form.setFields(errors);
      return;
    }
    if (!result || !result[TOKEN_NAME]) {
      messageApi().error(t('auth.login.noToken'));
      return;
    }
    applyLogin(result);
    messageApi().success(t('auth.register.success'));
    void navigate(AUTHENTICATE_PATH, { replace: true });
  };

  const iconStyle = { color: token.colorTextTertiary };

  return (
    <Form<RegisterValues>
      form={form}
      layout="vertical"
      requiredMark={false}
      initialValues={{ type: 'individual' }}
      onFinish={onFinish}
      scrollToFirstError
    >
      <Form.Item name="type" label={t('auth.register.accountType')} extra={t(`auth.register.${type}Hint`)}>
        <Segmented<AccountType>
          block
          options={[
            { value: 'individual', icon: <UserOutlined />, label: t('auth.register.individual') },
            { value: 'enterprise', icon: <BankOutlined />, label: t('auth.register.enterprise') },
          ]}
        />
      </Form.Item>
      <Form.Item name="username" label={t('auth.register.username')} rules={[toRule(checks.username, t)]}>
        <Input
          prefix={<UserOutlined style={iconStyle} />}
          placeholder={t('auth.register.usernamePlaceholder')}
          autoComplete="username"
          maxLength={20}
        />
      </Form.Item>
      <Form.Item name="mobile" label={t('auth.register.mobile')} rules={[toRule(checks.mobile, t)]}>
        <Input
          prefix={<MobileOutlined style={iconStyle} />}
          placeholder={t('auth.register.mobilePlaceholder')}
          inputMode="tel"
          autoComplete="tel"
          maxLength={11}
        />
      </Form.Item>
      {captcha.visible && (
        <CaptchaField
          label
          size="middle"
          captcha={captcha.data}
          loading={captcha.loading}
          failed={captcha.failed}
          onRefresh={captcha.refresh}
        />
      )}
      <SmsCodeField
        rules={[toRule(checks.smsCode, t)]}
        remaining={countdown.remaining}
        sending={sending}
        onSend={() => void onSendCode()}
      />
      <Form.Item
        name="password"
        label={t('auth.register.password')}
        rules={[toRule(checks.strongPassword, t)]}
        extra={<PasswordStrength value={password} />}
      >
        <Input.Password
          prefix={<LockOutlined style={iconStyle} />}
          placeholder={t('auth.register.passwordPlaceholder')}
          autoComplete="new-password"
          maxLength={16}
        />
      </Form.Item>
      <Form.Item
        name="confirmPassword"
        label={t('auth.register.confirmPassword')}
        dependencies={['password']}
        rules={[({ getFieldValue }) => toRule(checkConfirm(getFieldValue('password')), t)]}
      >
        <Input.Password
          prefix={<LockOutlined style={iconStyle} />}
          placeholder={t('auth.register.confirmPasswordPlaceholder')}
          autoComplete="new-password"
          maxLength={16}
        />
      </Form.Item>
      <Form.Item style={{ marginBottom: 16 }}>
        <Button type="primary" htmlType="submit" size="large" block loading={mutation.isPending}>
          {t('auth.register.submit')}
        </Button>
      </Form.Item>
      <Flex justify="center" gap={4}>
        <Typography.Text type="secondary">{t('auth.register.haveAccount')}</Typography.Text>
        <Link to="/login">{t('auth.register.toLogin')}</Link>
      </Flex>
    </Form>
  );
}
