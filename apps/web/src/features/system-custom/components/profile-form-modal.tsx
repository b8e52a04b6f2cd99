import { Form, Input, Modal } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { ProfileDetail } from '@cpc/contracts/system-custom';
import { messageApi } from '@/lib/feedback';
import { useFormLanguage } from '@/lib/use-form-language';
import { useCreateProfile, useUpdateProfile } from '../api/system-custom';
import { applyServerError } from '../utils/server-error';

interface Values {
  name: string;
  description: string;
}

/** New profile (a name and a description; its parts are set on the six pages), or renaming one. */
export function ProfileFormModal({
  open,
  profile,
  onClose,
  onSaved,
}: {
  open: boolean;
  /** The profile being renamed; absent: a new one. */
  profile?: Pick<ProfileDetail, 'id' | 'name' | 'description'>;
  onClose: () => void;
  onSaved: (id: number) => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const create = useCreateProfile();
  const update = useUpdateProfile();

  useEffect(() => {
    if (open) form.setFieldsValue({ name: profile?.name ?? '', description: profile?.description ?? '' });
  }, [open, profile, form]);

  const submit = async (v: Values) => {
    try {
      const saved = profile
        ? await update.mutateAsync({ id: profile.id, name: v.name, description: v.description })
        : await create.mutateAsync({ name: v.name, description: v.description });
      messageApi().success(profile ? t('systemCustom.form.renamed') : t('systemCustom.form.created'));
      onSaved(saved.id);
    } catch (e) {
      applyServerError(form, e);
    }
  };

  return (
    <Modal
      open={open}
      title={profile ? t('systemCustom.form.renameTitle') : t('systemCustom.form.newTitle')}
      okText={t('systemCustom.form.save')}
      cancelText={t('systemCustom.form.cancel')}
      onOk={() => form.submit()}
      onCancel={onClose}
      confirmLoading={create.isPending || update.isPending}
      destroyOnHidden
      okButtonProps={{ 'data-testid': 'profile-form-ok' } as Record<string, string>}
    >
      <Form<Values> form={form} layout="vertical" name="profile" onFinish={(v) => void submit(v)}>
        <Form.Item
          name="name"
          label={t('systemCustom.form.name')}
          rules={[{ required: true, whitespace: true, max: 100 }]}
        >
          <Input maxLength={100} />
        </Form.Item>
        <Form.Item name="description" label={t('systemCustom.form.description')} rules={[{ max: 500 }]}>
          <Input.TextArea rows={3} maxLength={500} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
