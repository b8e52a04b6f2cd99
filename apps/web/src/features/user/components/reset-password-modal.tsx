import { Form, Input, Modal, Typography } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { SubAccountView } from '@cpc/contracts';
import { useResetSubAccountPassword } from '../api/sub-account';
import { toFormFieldErrors } from '../utils/field-errors';
import { checkConfirm, checks, toRule } from '../utils/rules';
import { useFormLanguage } from '@/lib/use-form-language';

interface Values {
  password: string;
  confirmPassword: string;
}
const FIELDS = ['password', 'confirmPassword'] as const;

/** A new password for a sub-account; the server signs it out everywhere. */
export function ResetPasswordModal({
  record,
  onClose,
  onDone,
}: {
  record: SubAccountView | null;
  onClose: () => void;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const reset = useResetSubAccountPassword();

  useEffect(() => {
    if (record) form.resetFields();
  }, [record, form]);

  const submit = async () => {
    if (!record) return;
    let values: Values;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    try {
      await reset.mutateAsync({ id: record.id, ...values });
    } catch (err) {
      form.setFields(toFormFieldErrors(err, FIELDS, t));
      return;
    }
    onDone();
  };

  return (
    <Modal
      open={!!record}
      title={record ? t('user.subAccount.reset.title', { name: record.username }) : undefined}
      okText={t('user.subAccount.reset.ok')}
      cancelText={t('user.subAccount.form.cancel')}
      okButtonProps={{ danger: true }}
      confirmLoading={reset.isPending}
      onOk={() => void submit()}
      onCancel={onClose}
      forceRender
    >
      <Typography.Paragraph type="secondary">{t('user.subAccount.reset.description')}</Typography.Paragraph>
      <Form<Values> name="resetPassword" form={form} layout="vertical" onFinish={() => void submit()}>
        <Form.Item
          name="password"
          label={t('user.subAccount.reset.password')}
          rules={[toRule(checks.strongPassword, t)]}
          required
        >
          <Input.Password
            maxLength={16}
            autoComplete="new-password"
            placeholder={t('user.subAccount.form.passwordPlaceholder')}
          />
        </Form.Item>
        <Form.Item
          name="confirmPassword"
          label={t('user.subAccount.reset.confirm')}
          dependencies={['password']}
          rules={[({ getFieldValue }) => toRule(checkConfirm(getFieldValue('password')), t)]}
          required
        >
          <Input.Password
            maxLength={16}
            autoComplete="new-password"
            placeholder={t('user.subAccount.form.confirmPlaceholder')}
          />
        </Form.Item>
        <button type="submit" hidden aria-hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}
