import { Form, Input, Select } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { DeviceModelOption } from '@cpc/contracts/device-model';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { PackageDrawer } from '@/components/package-drawer';
import { request } from '@/lib/request';
import { usePermission } from '@/lib/session';

/**
 * Uploads a firmware image and describes it: product line, version, the device models it fits (none: any), release
 * notes.
 */
export function FirmwareUploadDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  // the model catalogue is read with device:view; without it the codes are typed
  const seesModels = usePermission(PERMISSIONS.deviceView);
  const models = useQuery({
    queryKey: ['upgrade', 'model-options'],
    queryFn: () => request<DeviceModelOption[]>({ url: '/device/model/options', method: 'get' }),
    enabled: open && seesModels,
    staleTime: 60_000,
  });

  return (
    <PackageDrawer
      open={open}
      onClose={onClose}
      kind="firmware"
      accept=".bin,.img,.zip,.pkg,.tar,.gz"
      title={t('upgrade.upload.title')}
      saveLabel={t('upgrade.upload.save')}
      savedMessage={t('upgrade.upload.saved')}
      formName="firmware"
      initialValues={{ models: [], notes: '' }}
      saveTestId="firmware-save"
    >
      <Form.Item
        name="name"
        label={t('upgrade.upload.name')}
        extra={t('upgrade.upload.nameHint')}
        rules={[{ required: true, whitespace: true, max: 100 }]}
      >
        <Input />
      </Form.Item>
      <Form.Item
        name="versionName"
        label={t('upgrade.upload.version')}
        rules={[{ required: true, whitespace: true, max: 64 }]}
      >
        <Input placeholder="2.1.0" />
      </Form.Item>
      <Form.Item name="models" label={t('upgrade.upload.models')} extra={t('upgrade.upload.modelsHint')}>
        <Select
          mode="tags"
          tokenSeparators={[',', ' ']}
          loading={models.isLoading}
          options={(models.data ?? []).map((m) => ({ value: m.code, label: `${m.code} · ${m.name}` }))}
        />
      </Form.Item>
      <Form.Item name="notes" label={t('upgrade.upload.notes')} rules={[{ max: 5000 }]}>
        <Input.TextArea rows={4} />
      </Form.Item>
    </PackageDrawer>
  );
}
