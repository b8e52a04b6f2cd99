import { Form, Input, Modal } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { RoleView } from '@cpc/contracts/role';
import { useFormLanguage } from '@/lib/use-form-language';
import { useCopyRole } from '../api/role';
import { CODE_MAX, NAME_MAX, checkCode, checkName, formFieldErrors, toRule } from '../utils/rules';

interface Values {
  name: string;
  code: string;
}
const FIELDS = ['name', 'code'] as const;

interface CopyModalProps {
  source: RoleView | null;
  onClose: () => void;
  onCopied: (role: RoleView) => void;
}

/** A new role with the source's permissions, data scope and description, under a new name and code. */
export function CopyModal({ source, onClose, onCopied }: CopyModalProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const copy = useCopyRole();

  useEffect(() => {
    if (!source) return;
    form.resetFields();
    form.setFieldsValue({
      name: t('role.copy.defaultName', { name: source.name }).slice(0, NAME_MAX),
      code: `${source.code}_copy`.slice(0, CODE_MAX),
    });
  }, [source, form, t]);

  const submit = async () => {
    if (!source) return;
    let values: Values;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    try {
      onCopied(await copy.mutateAsync({ id: source.id, name: values.name.trim(), code: values.code.trim() }));
    } catch (err) {
      const { fields, rest } = formFieldErrors(err, FIELDS, t);
      form.setFields(rest ? [{ name: 'code', errors: [rest] }] : fields);
    }
  };

  return (
    <Modal
      open={!!source}
      title={t('role.copy.title', { name: source?.name ?? '' })}
      okText={t('role.copy.ok')}
      cancelText={t('role.cancel')}
      confirmLoading={copy.isPending}
      onOk={() => void submit()}
      onCancel={onClose}
      forceRender
    >
      <Form<Values> name="roleCopy" form={form} layout="vertical" onFinish={() => void submit()}>
        <Form.Item name="name" label={t('role.form.name')} rules={[toRule(checkName, t)]} required>
          <Input maxLength={NAME_MAX + 10} />
        </Form.Item>
        <Form.Item name="code" label={t('role.form.code')} rules={[toRule(checkCode, t)]} required>
          <Input maxLength={CODE_MAX} autoComplete="off" />
        </Form.Item>
        <button type="submit" hidden aria-hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}
