import { Alert, App, Form, Input, Modal, TreeSelect, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { BIND_KEY_RULE, SN_RULE } from '@cpc/contracts/device-constants';
import type { DeviceListItem } from '@cpc/contracts/device';
import { useBindDevice } from '../api/devices';
import { useGroupTree } from '../api/groups';
import { deviceLabel } from '../utils/command-confirm';
import { groupOptions } from '../utils/group-tree';
import { explainError, splitErrors } from '../utils/server-errors';
import { useFormLanguage } from '@/lib/use-form-language';

interface BindValues {
  sn: string;
  bindKey: string;
  name?: string;
  groupId?: number;
}

const FIELDS = ['sn', 'bindKey', 'name', 'groupId'] as const;

/** Binds a device with the serial number and key on its label; the server's refusals show on their field. */
export function BindModal({
  open,
  defaultGroupId,
  onClose,
  onBound,
}: {
  open: boolean;
  defaultGroupId?: number;
  onClose: () => void;
  onBound: (device: DeviceListItem) => void;
}) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<BindValues>();
  useFormLanguage(form);
  const [general, setGeneral] = useState<string[]>([]);
  const bind = useBindDevice();
  const groups = useGroupTree();

  const submit = async (values: BindValues) => {
    setGeneral([]);
    try {
      const device = await bind.mutateAsync({
        sn: values.sn.trim(),
        bindKey: values.bindKey.trim(),
        name: values.name?.trim() || undefined,
        groupId: values.groupId ?? null,
      });
      message.success(t('device.bind.done', { name: deviceLabel(device) }));
      onBound(device);
    } catch (err) {
      const { fields, general: rest } = splitErrors(explainError(err), FIELDS, t);
      form.setFields(fields.map((f) => ({ name: f.name as keyof BindValues, errors: f.errors })));
      setGeneral(rest);
    }
  };

  return (
    <Modal
      open={open}
      title={t('device.bind.title')}
      okText={t('device.bind.submit')}
      cancelText={t('device.bind.cancel')}
      confirmLoading={bind.isPending}
      onOk={() => form.submit()}
      onCancel={onClose}
      afterOpenChange={(visible) => {
        if (visible) return;
        form.resetFields();
        setGeneral([]);
      }}
    >
      <Typography.Paragraph type="secondary">{t('device.bind.help')}</Typography.Paragraph>
      {general.length > 0 && (
        <Alert type="error" showIcon style={{ marginBottom: 16 }} title={general.join('；')} data-testid="bind-error" />
      )}
      <Form<BindValues>
        form={form}
        name="bind"
        layout="vertical"
        onFinish={submit}
        initialValues={{ groupId: defaultGroupId || undefined }}
        requiredMark="optional"
      >
        <Form.Item
          name="sn"
          label={t('device.bind.sn')}
          rules={[
            { required: true, whitespace: true, message: t('device.bind.snRequired') },
            { pattern: SN_RULE, message: t('device.bind.snRule') },
          ]}
          normalize={(v: string) => v.trim()}
        >
          <Input placeholder={t('device.bind.snPlaceholder')} autoComplete="off" maxLength={32} />
        </Form.Item>
        <Form.Item
          name="bindKey"
          label={t('device.bind.bindKey')}
          rules={[
            { required: true, whitespace: true, message: t('device.bind.bindKeyRequired') },
            { pattern: BIND_KEY_RULE, message: t('device.bind.bindKeyRule') },
          ]}
          normalize={(v: string) => v.trim()}
        >
          <Input placeholder={t('device.bind.bindKeyPlaceholder')} autoComplete="off" maxLength={32} />
        </Form.Item>
        <Form.Item name="name" label={t('device.bind.name')} rules={[{ max: 30, message: t('device.edit.nameMax') }]}>
          <Input placeholder={t('device.bind.namePlaceholder')} maxLength={30} showCount />
        </Form.Item>
        <Form.Item name="groupId" label={t('device.bind.group')}>
          <TreeSelect
            allowClear
            treeDefaultExpandAll
            placeholder={t('device.bind.groupPlaceholder')}
            treeData={groupOptions(groups.data?.tree ?? [])}
            loading={groups.isPending}
            fieldNames={{ label: 'title', value: 'value', children: 'children' }}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
