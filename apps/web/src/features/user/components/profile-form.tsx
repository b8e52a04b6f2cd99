import { App, Button, Form, Input } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { ProfileView } from '@cpc/contracts';
import { EMAIL_MAX, NICKNAME_MAX } from '@cpc/contracts/validators';
import { useUpdateProfile } from '../api/profile';
import { toFormFieldErrors } from '../utils/field-errors';
import { checks, toRule } from '../utils/rules';
import { useFormLanguage } from '@/lib/use-form-language';

interface Values {
  nickname: string;
  email: string;
}
const FIELDS = ['nickname', 'email'] as const;

/** Nickname and e-mail; the user name is shown but cannot change. */
export function ProfileForm({ profile }: { profile: ProfileView }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const save = useUpdateProfile();

  useEffect(() => {
    form.setFieldsValue({ nickname: profile.nickname, email: profile.email });
  }, [form, profile.nickname, profile.email]);

  const submit = async (values: Values) => {
    try {
      await save.mutateAsync({ nickname: values.nickname.trim(), email: values.email.trim() });
    } catch (err) {
      form.setFields(toFormFieldErrors(err, FIELDS, t));
      return;
    }
    message.success(t('user.edit.saved'));
  };

  return (
    <Form<Values>
      name="profile"
      form={form}
      layout="vertical"
      style={{ maxWidth: 480 }}
      onFinish={submit}
      initialValues={{ nickname: profile.nickname, email: profile.email }}
    >
      <Form.Item label={t('user.profile.username')} extra={t('user.edit.usernameHint')}>
        <Input value={profile.username} disabled />
      </Form.Item>
      <Form.Item name="nickname" label={t('user.profile.nickname')} rules={[toRule(checks.nickname, t)]}>
        <Input maxLength={NICKNAME_MAX + 10} placeholder={t('user.edit.nicknamePlaceholder')} allowClear />
      </Form.Item>
      <Form.Item name="email" label={t('user.profile.email')} rules={[toRule(checks.email, t)]}>
        <Input
          type="email"
          inputMode="email"
          maxLength={EMAIL_MAX + 10}
          placeholder={t('user.edit.emailPlaceholder')}
          allowClear
        />
      </Form.Item>
      <Button type="primary" htmlType="submit" loading={save.isPending}>
        {t('user.edit.save')}
      </Button>
    </Form>
  );
}
