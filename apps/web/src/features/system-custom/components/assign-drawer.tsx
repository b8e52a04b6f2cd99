import { Alert, Button, Drawer, Form, Grid } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DeviceSelect, GroupTreeSelect } from '@/components/device-targets';
import { messageApi } from '@/lib/feedback';
import { useFormLanguage } from '@/lib/use-form-language';
import { useAssignProfile } from '../api/system-custom';
import { applyServerError } from '../utils/server-error';

interface Values {
  groupIds: number[];
  deviceIds: number[];
}

/** Assign the profile to groups and devices; a target that had another profile of its own gets this one instead. */
export function AssignDrawer({ profileId, open, onClose }: { profileId: number; open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const narrow = !Grid.useBreakpoint().sm;
  const assign = useAssignProfile();
  const [error, setError] = useState('');

  const submit = async (v: Values) => {
    setError('');
    if (!v.groupIds?.length && !v.deviceIds?.length) {
      form.setFields([{ name: 'deviceIds', errors: [t('systemCustom.assign.required')] }]);
      return;
    }
    try {
      const r = await assign.mutateAsync({ id: profileId, groupIds: v.groupIds ?? [], deviceIds: v.deviceIds ?? [] });
      messageApi().success(t('systemCustom.assign.done', { affected: r.affected, queued: r.queued }));
      form.resetFields();
      onClose();
    } catch (e) {
      setError(applyServerError(form, e));
    }
  };

  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={t('systemCustom.assign.title')}
      size={narrow ? '100%' : 480}
      destroyOnHidden
      footer={
        <Button
          type="primary"
          block
          loading={assign.isPending}
          onClick={() => form.submit()}
          data-testid="assign-submit"
        >
          {t('systemCustom.assign.submit')}
        </Button>
      }
    >
      <Form<Values>
        form={form}
        layout="vertical"
        name="assign"
        initialValues={{ groupIds: [], deviceIds: [] }}
        onFinish={(v) => void submit(v)}
      >
        <Alert type="info" showIcon title={t('systemCustom.rule.text')} style={{ marginBottom: 16 }} />
        {error && <Alert type="error" showIcon title={error} style={{ marginBottom: 16 }} />}
        <Form.Item name="groupIds" label={t('systemCustom.assign.groups')} extra={t('systemCustom.assign.groupsHint')}>
          <GroupTreeSelect enabled={open} data-testid="assign-groups" />
        </Form.Item>
        <Form.Item name="deviceIds" label={t('systemCustom.assign.devices')}>
          <DeviceSelect
            enabled={open}
            placeholder={t('systemCustom.assign.devicesPlaceholder')}
            data-testid="assign-devices"
          />
        </Form.Item>
      </Form>
    </Drawer>
  );
}
