import { App, Button, Drawer, Form, Input, Select } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DeviceModelOption } from '@cpc/contracts/device-model';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { PackageUpload } from '@/components/package-upload';
import { useCreatePackage, type UploadedPackage } from '@/lib/packages';
import { request } from '@/lib/request';
import { usePermission } from '@/lib/session';
import { useFormLanguage } from '@/lib/use-form-language';

interface Values {
  name: string;
  versionName: string;
  models: string[];
  notes: string;
}

/**
 * Uploads a firmware image (chunked, resumable, its SHA-256 checked by the server) and describes it: product line,
 * version, the device models it fits (none: any), release notes.
 */
export function FirmwareUploadDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const [uploaded, setUploaded] = useState<UploadedPackage | null>(null);
  const create = useCreatePackage();
  // the model catalogue is read with device:view; without it the codes are typed
  const seesModels = usePermission(PERMISSIONS.deviceView);
  const models = useQuery({
    queryKey: ['upgrade', 'model-options'],
    queryFn: () => request<DeviceModelOption[]>({ url: '/device/model/options', method: 'get' }),
    enabled: open && seesModels,
    staleTime: 60_000,
  });

  const save = async () => {
    const v = await form.validateFields().catch(() => null);
    if (!v || !uploaded) return;
    try {
      await create.mutateAsync({ kind: 'firmware', uploadId: uploaded.uploadId, sha256: uploaded.sha256, ...v });
      message.success(t('upgrade.upload.saved'));
      form.resetFields();
      setUploaded(null);
      onClose();
    } catch (err) {
      message.error(err instanceof Error ? err.message : String(err));
    }
  };

  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={t('upgrade.upload.title')}
      size={520}
      destroyOnHidden
      extra={
        <Button
          type="primary"
          onClick={save}
          disabled={!uploaded}
          loading={create.isPending}
          data-testid="firmware-save"
        >
          {t('upgrade.upload.save')}
        </Button>
      }
    >
      <PackageUpload kind="firmware" accept=".bin,.img,.zip,.pkg,.tar,.gz" onUploaded={setUploaded} />
      <Form<Values>
        form={form}
        layout="vertical"
        name="firmware"
        style={{ marginTop: 16 }}
        initialValues={{ models: [], notes: '' }}
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
      </Form>
    </Drawer>
  );
}
