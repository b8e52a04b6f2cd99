import LockOutlined from '@ant-design/icons-svg/es/asn/LockOutlined';
import SafetyCertificateOutlined from '@ant-design/icons-svg/es/asn/SafetyCertificateOutlined';
import UserOutlined from '@ant-design/icons-svg/es/asn/UserOutlined';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { TOKEN_NAME } from '@cpc/contracts/constants';
import { LiteButton } from '@/components/lite/button';
import { LiteField, LiteInput } from '@/components/lite/input';
import { messageApi, prepareMessages } from '@/lib/feedback';
import { useSession } from '@/lib/session';
import { login } from '../api/login';
import { linkWithPassword } from '../api/social';
import { useCaptcha } from '../hooks/use-captcha';
import { toFormFieldErrors } from '../utils/field-errors';
import { safeRedirect } from '../utils/redirect';
import { checks, type Check } from '../utils/rules';
import { AuthText } from './auth-typography';
import { CaptchaImage } from './captcha-image';

type Field = 'username' | 'password' | 'captcha';
type Values = Record<Field, string>;
type Errors = Partial<Record<Field, string>>;

const FIELD_CHECKS: Record<Field, Check> = {
  username: checks.loginUsername,
  password: checks.loginPassword,
  captcha: checks.captcha,
};

interface LoginFormProps {
  /** A social-login link ticket: signing in links its identity to the account (POST /socialLogin/link). */
  ticket?: string;
  /** Where to go after signing in instead of the page's `?redirect=`. */
  redirectTo?: string | null;
}

/**
 * The sign-in form shared by /login and /login88121. Plain elements rather than antd's Form: the sign-in page
 * is the console's first load and carries no antd (issue 3: ≤ 180 KiB). The rules are the same checks the
 * antd forms use; a field is checked when it is left and again on submit, as antd's form does.
 */
export function LoginForm({ ticket, redirectTo }: LoginFormProps = {}) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const applyLogin = useSession((s) => s.applyLogin);
  const captcha = useCaptcha();
  const [values, setValues] = useState<Values>({ username: '', password: '', captcha: '' });
  const [errors, setErrors] = useState<Errors>({});
  const [touched, setTouched] = useState<Partial<Record<Field, boolean>>>({});
  const [pending, setPending] = useState(false);

  const fields: Field[] = captcha.enabled ? ['username', 'password', 'captcha'] : ['username', 'password'];
  // errors are kept as keys and said at render time, so a switch of language says them again in the new one
  const problem = (field: Field, value = values[field]) => FIELD_CHECKS[field](value) || undefined;
  const say = (error: string | undefined) => (error && i18n.exists(error) ? t(error) : error);

  const change = (field: Field, value: string) => {
    setValues((v) => ({ ...v, [field]: value }));
    // once a field has been judged, it is judged again as it is typed
    if (touched[field] || errors[field]) setErrors((e) => ({ ...e, [field]: problem(field, value) }));
  };
  const leave = (field: Field) => {
    setTouched((s) => ({ ...s, [field]: true }));
    if (values[field]) setErrors((e) => ({ ...e, [field]: problem(field) }));
  };

  // an answer typed for the image before a renewal would be wrong for the new one
  const captchaId = captcha.data?.captchaId;
  useEffect(() => setValues((v) => (v.captcha ? { ...v, captcha: '' } : v)), [captchaId]);

  const refreshCaptcha = () => {
    setValues((v) => ({ ...v, captcha: '' }));
    captcha.refresh();
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (pending) return;
    const found: Errors = {};
    for (const field of fields) found[field] = problem(field);
    setErrors(found);
    const first = fields.find((f) => found[f]);
    if (first) {
      document.getElementById(first)?.focus();
      return;
    }
    setPending(true);
    prepareMessages();
    let result: Awaited<ReturnType<typeof login>>;
    try {
      const credentials = {
        username: values.username.trim(),
        password: values.password,
        ...captcha.payload(values.captcha),
      };
      result = ticket ? await linkWithPassword({ ticket, ...credentials }) : await login(credentials);
    } catch (err) {
      // the request layer has already shown why; a wrong captcha is also marked on its field
      setPending(false);
      refreshCaptcha();
      const fromServer = toFormFieldErrors(err, ['username', 'password', 'captcha'] as const, (key) => key);
      if (fromServer.length) setErrors(Object.fromEntries(fromServer.map((f) => [f.name, f.errors[0]])));
      return;
    }
    setPending(false);
    if (!result || !result[TOKEN_NAME]) {
      messageApi().error(t('auth.login.noToken'));
      refreshCaptcha();
      return;
    }
    applyLogin(result);
    messageApi().success(t('auth.login.success'));
    void navigate(safeRedirect(redirectTo !== undefined ? redirectTo : params.get('redirect')), { replace: true });
  };

  const input = (field: Field) => ({
    id: field,
    name: field,
    value: values[field],
    invalid: !!errors[field],
    onChange: (e: { target: { value: string } }) => change(field, e.target.value),
    onBlur: () => leave(field),
  });

  return (
    <form noValidate autoComplete="on" onSubmit={(e) => void onSubmit(e)}>
      <LiteField id="username" error={say(errors.username)}>
        <LiteInput
          {...input('username')}
          prefix={UserOutlined}
          placeholder={t('auth.login.usernamePlaceholder')}
          aria-label={t('auth.login.username')}
          autoComplete="username"
          maxLength={32}
          autoFocus
        />
      </LiteField>
      <LiteField id="password" error={say(errors.password)}>
        <LiteInput
          {...input('password')}
          prefix={LockOutlined}
          password={{ show: t('auth.login.showPassword'), hide: t('auth.login.hidePassword') }}
          placeholder={t('auth.login.passwordPlaceholder')}
          aria-label={t('auth.login.password')}
          autoComplete="current-password"
          maxLength={64}
        />
      </LiteField>
      {captcha.visible && (
        <div className="auth-captcha">
          <LiteField id="captcha" error={say(errors.captcha)}>
            <LiteInput
              {...input('captcha')}
              prefix={SafetyCertificateOutlined}
              placeholder={t('auth.captcha.placeholder')}
              aria-label={t('auth.captcha.label')}
              autoComplete="off"
              maxLength={16}
            />
          </LiteField>
          <CaptchaImage
            captcha={captcha.data}
            loading={captcha.loading}
            failed={captcha.failed}
            onRefresh={refreshCaptcha}
          />
        </div>
      )}
      <LiteField id="submit" className="auth-submit">
        <LiteButton type="submit" primary block loading={pending}>
          {t('auth.login.submit')}
        </LiteButton>
      </LiteField>
      {!ticket && (
        <div style={{ display: 'flex', justifyContent: 'center', gap: 4 }}>
          <AuthText secondary>{t('auth.login.noAccount')}</AuthText>
          <Link className="auth-link" to="/register">
            {t('auth.login.toRegister')}
          </Link>
        </div>
      )}
    </form>
  );
}
