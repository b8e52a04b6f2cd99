import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { useMutation } from '@tanstack/react-query';
import { Button, Flex, Form, Input, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { TOKEN_NAME } from '@cpc/contracts/constants';
import { messageApi } from '@/lib/feedback';
import { useSession } from '@/lib/session';
import { login } from '../api/login';
import { useCaptchaControl } from '../hooks/use-captcha-control';
import { toFormFieldErrors } from '../utils/field-errors';
import { safeRedirect } from '../utils/redirect';
import { checks, toRule } from '../utils/rules';
import { AuthText } from './auth-typography';
import { CaptchaField } from './captcha-field';

interface LoginValues {
  username: string;
  password: string;
  captcha?: string;
}

/** The sign-in form shared by /login and /login88121. */
export function LoginForm() {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const applyLogin = useSession((s) => s.applyLogin);
  const [form] = Form.useForm<LoginValues>();
  const captcha = useCaptchaControl('login', form);
  const mutation = useMutation({ mutationFn: login });

  const onFinish = async (values: LoginValues) => {
    let result: Awaited<ReturnType<typeof login>>;
    try {
      result = await mutation.mutateAsync({
        username: values.username.trim(),
        password: values.password,
        ...captcha.payload(values.captcha),
      });
    } catch (err) {
      // the request layer has already shown why; a wrong captcha is also marked on its field
      captcha.refresh();
      const errors = toFormFieldErrors(err, ['username', 'password', 'captcha'] as const, t);
      if (errors.length) form.setFields(errors);
      return;
    }
    if (!result || !result[TOKEN_NAME]) {
      messageApi().error(t('auth.login.noToken'));
      captcha.refresh();
      return;
    }
    applyLogin(result);
    messageApi().success(t('auth.login.success'));
    navigate(safeRedirect(params.get('redirect')), { replace: true });
  };

  const iconStyle = { color: token.colorTextTertiary };

  return (
    <Form<LoginValues> form={form} size="large" onFinish={onFinish} autoComplete="on" requiredMark={false}>
      <Form.Item name="username" rules={[toRule(checks.loginUsername, t)]}>
        <Input
          prefix={<UserOutlined style={iconStyle} />}
          placeholder={t('auth.login.usernamePlaceholder')}
          aria-label={t('auth.login.username')}
          autoComplete="username"
          maxLength={32}
          autoFocus
        />
      </Form.Item>
      <Form.Item name="password" rules={[toRule(checks.loginPassword, t)]}>
        <Input.Password
          prefix={<LockOutlined style={iconStyle} />}
          placeholder={t('auth.login.passwordPlaceholder')}
          aria-label={t('auth.login.password')}
          autoComplete="current-password"
          maxLength={64}
        />
      </Form.Item>
      {captcha.visible && (
        <CaptchaField
          captcha={captcha.data}
          loading={captcha.loading}
          failed={captcha.failed}
          onRefresh={captcha.refresh}
          rules={[toRule(checks.captcha, t)]}
        />
      )}
      <Form.Item style={{ marginBottom: 16 }}>
        <Button type="primary" htmlType="submit" block loading={mutation.isPending}>
          {t('auth.login.submit')}
        </Button>
      </Form.Item>
      <Flex justify="center" gap={4}>
        <AuthText secondary>{t('auth.login.noAccount')}</AuthText>
        <Link to="/register">{t('auth.login.toRegister')}</Link>
      </Flex>
    </Form>
  );
}
