import { Alert, App, Form, Input, Modal } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DeviceListItem } from '@cpc/contracts/device';
import { useEditDevice } from '../api/devices';
import { deviceLabel } from '../utils/command-confirm';
import { explainError, splitErrors } from '../utils/server-errors';
import { useFormLanguage } from '@/lib/use-form-language';
import { useSession } from '@/lib/session';
import { DepartmentTreeSelect } from '@/components/department-tree-select';

interface EditValues {
  name: string;
  remark: string;
  departmentId: number | null;
}

/** Rename a device or change its remark. */
export function EditModal({
  device,
  onClose,
}: {
  device: Pick<DeviceListItem, 'id' | 'sn' | 'name' | 'remark' | 'departmentId'> | null;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<EditValues>();
  useFormLanguage(form);
  const [general, setGeneral] = useState<string[]>([]);
  const edit = useEditDevice();
  // only a user who sees every device files one under another department (the server says so too)
  const canRefile = useSession((s) => s.userInfo?.dataScope === 'all');

  useEffect(() => {
    if (device) form.setFieldsValue({ name: device.name, remark: device.remark, departmentId: device.departmentId });
  }, [device, form]);

  const submit = async (values: EditValues) => {
    if (!device) return;
    setGeneral([]);
    try {
      const departmentId = values.departmentId ?? null;
      await edit.mutateAsync({
        id: device.id,
        name: values.name.trim(),
        remark: values.remark.trim(),
        // sent only when changed: refiling a device needs the "all devices" data scope
        ...(departmentId !== device.departmentId ? { departmentId } : {}),
      });
      message.success(t('device.edit.done'));
      onClose();
    } catch (err) {
      const { fields, general: rest } = splitErrors(explainError(err), ['name', 'remark', 'departmentId'], t);
      form.setFields(fields.map((f) => ({ name: f.name as keyof EditValues, errors: f.errors })));
      setGeneral(rest);
    }
  };

  return (
    <Modal
      open={!!device}
      title={device ? t('device.edit.title', { name: deviceLabel(device) }) : ''}
      okText={t('device.edit.save')}
      cancelText={t('device.edit.cancel')}
      confirmLoading={edit.isPending}
      onOk={() => form.submit()}
      onCancel={onClose}
      afterOpenChange={(visible) => !visible && setGeneral([])}
      forceRender
    >
      {general.length > 0 && <Alert type="error" showIcon style={{ marginBottom: 16 }} title={general.join('；')} />}
      <Form<EditValues> form={form} name="deviceEdit" layout="vertical" onFinish={submit}>
        <Form.Item name="name" label={t('device.edit.name')} rules={[{ max: 30, message: t('device.edit.nameMax') }]}>
          <Input placeholder={device?.sn ?? t('device.edit.namePlaceholder')} maxLength={30} showCount />
        </Form.Item>
        <Form.Item
          name="departmentId"
          label={t('device.edit.department')}
          extra={t(canRefile ? 'device.edit.departmentHint' : 'device.edit.departmentLocked')}
        >
          <DepartmentTreeSelect placeholder={t('device.edit.departmentPlaceholder')} disabled={!canRefile} />
        </Form.Item>
        <Form.Item
          name="remark"
          label={t('device.edit.remark')}
          rules={[{ max: 200, message: t('device.edit.remarkMax') }]}
        >
          <Input.TextArea
            placeholder={t('device.edit.remarkPlaceholder')}
            maxLength={200}
            showCount
            autoSize={{ minRows: 2, maxRows: 5 }}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
