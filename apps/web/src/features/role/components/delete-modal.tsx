import { Alert, Form, Modal, Select } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { RoleView } from '@cpc/contracts/role';
import { useFormLanguage } from '@/lib/use-form-language';
import { useDeleteRole, useRoleList } from '../api/role';

interface DeleteModalProps {
  /** A role with members: they must move to another role of the tenant before it goes. */
  role: RoleView | null;
  onClose: () => void;
  onDeleted: (role: RoleView) => void;
}

/** Deleting a role in use: the user picks the role its members move to, then both happen at once. */
export function DeleteModal({ role, onClose, onDeleted }: DeleteModalProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ reassignTo?: number }>();
  useFormLanguage(form);
  const [failed, setFailed] = useState<string | null>(null);
  const roles = useRoleList({ pageNo: 1, pageSize: 100 });
  const remove = useDeleteRole();

  useEffect(() => {
    if (!role) return;
    setFailed(null);
    form.resetFields();
  }, [role, form]);

  const submit = async () => {
    if (!role) return;
    let values: { reassignTo?: number };
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    try {
      await remove.mutateAsync({ id: role.id, reassignTo: values.reassignTo });
      onDeleted(role);
    } catch (err) {
      setFailed(err instanceof Error ? err.message : String(err));
    }
  };

  const options = (roles.data?.list ?? [])
    .filter((r) => r.id !== role?.id)
    .map((r) => ({ value: r.id, label: `${r.name} (${r.code})` }));

  return (
    <Modal
      open={!!role}
      title={t('role.delete.title', { name: role?.name ?? '' })}
      okText={t('role.delete.reassignOk')}
      okButtonProps={{ danger: true }}
      cancelText={t('role.cancel')}
      confirmLoading={remove.isPending}
      onOk={() => void submit()}
      onCancel={onClose}
      forceRender
    >
      <Alert type="warning" showIcon title={t('role.delete.inUse', { n: role?.memberCount ?? 0 })} />
      {failed && <Alert type="error" showIcon title={failed} style={{ marginTop: 12 }} />}
      <Form name="roleDelete" form={form} layout="vertical" style={{ marginTop: 16 }}>
        <Form.Item
          name="reassignTo"
          label={t('role.delete.reassignTo')}
          rules={[{ required: true, message: t('role.delete.reassignRequired') }]}
        >
          <Select options={options} loading={roles.isFetching} showSearch optionFilterProp="label" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
