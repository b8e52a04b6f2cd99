import { Alert, App, Button, Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { useChangePassword, type ChangePasswordInput } from '../api/profile';
import { toFormFieldErrors } from '../utils/field-errors';
import { checkConfirm, checkNotSame, checks, toRule } from '../utils/rules';
import { useFormLanguage } from '@/lib/use-form-language';

const FIELDS = ['oldPassword', 'password', 'confirmPassword'] as const;

/** Old password, new one twice (8–16 with upper, lower and digit); every other session ends, this one stays. */
export function PasswordForm() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<ChangePasswordInput>();
  useFormLanguage(form);
  const change = useChangePassword();

  const submit = async (values: ChangePasswordInput) => {
    try {
      await change.mutateAsync(values);
    } catch (err) {
      form.setFields(toFormFieldErrors(err, FIELDS, t));
      return;
    }
    form.resetFields();
    message.success(t('user.password.success'));
  };

  return (
    <Form<ChangePasswordInput>
      name="password"
      form={form}
      layout="vertical"
      style={{ maxWidth: 480 }}
      onFinish={submit}
    >
      <Alert type="info" showIcon title={t('user.password.notice')} style={{ marginBottom: 16 }} />
      <Form.Item name="oldPassword" label={t('user.password.old')} rules={[toRule(checks.oldPassword, t)]}>
        <Input.Password
          autoComplete="current-password"
          maxLength={64}
          placeholder={t('user.password.oldPlaceholder')}
        />
      </Form.Item>
      <Form.Item
        name="password"
        label={t('user.password.new')}
        dependencies={['oldPassword']}
        rules={[
          toRule(checks.strongPassword, t),
          ({ getFieldValue }) => toRule(checkNotSame(getFieldValue('oldPassword')), t),
        ]}
      >
        <Input.Password autoComplete="new-password" maxLength={16} placeholder={t('user.password.newPlaceholder')} />
      </Form.Item>
      <Form.Item
        name="confirmPassword"
        label={t('user.password.confirm')}
        dependencies={['password']}
        rules={[({ getFieldValue }) => toRule(checkConfirm(getFieldValue('password')), t)]}
      >
        <Input.Password
          autoComplete="new-password"
          maxLength={16}
          placeholder={t('user.password.confirmPlaceholder')}
        />
      </Form.Item>
      <Button type="primary" htmlType="submit" loading={change.isPending}>
        {t('user.password.submit')}
      </Button>
    </Form>
  );
}
