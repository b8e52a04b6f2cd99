import { App, Button, Drawer, Form, Input, Select } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { MODEL_FRAMEWORKS } from '@cpc/contracts';
import { PackageUpload } from '@/components/package-upload';
import { useCreatePackage, type UploadedPackage } from '@/lib/packages';
import { useFormLanguage } from '@/lib/use-form-language';

interface Values {
  name: string;
  versionName: string;
  framework: (typeof MODEL_FRAMEWORKS)[number];
  inputs: string;
  outputs: string;
  models: string[];
  notes: string;
}

/** Uploads a model file (chunked, resumable) and describes it: name, version, framework, inputs, outputs, fitting models. */
export function ModelUploadDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const [uploaded, setUploaded] = useState<UploadedPackage | null>(null);
  const create = useCreatePackage();

  const save = async () => {
    const v = await form.validateFields().catch(() => null);
    if (!v || !uploaded) return;
    try {
      await create.mutateAsync({ kind: 'model', uploadId: uploaded.uploadId, sha256: uploaded.sha256, ...v });
      message.success(t('aiLibrary.terminal.saved'));
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
      title={t('aiLibrary.terminal.upload')}
      size={520}
      destroyOnHidden
      extra={
        <Button type="primary" onClick={save} disabled={!uploaded} loading={create.isPending}>
          {t('aiLibrary.terminal.save')}
        </Button>
      }
    >
      <PackageUpload kind="model" accept=".onnx,.tflite,.bin,.param,.zip" onUploaded={setUploaded} />
      <Form<Values>
        form={form}
        layout="vertical"
        name="aiModel"
        style={{ marginTop: 16 }}
        initialValues={{ framework: 'onnx', inputs: '', outputs: '', models: [], notes: '' }}
      >
        <Form.Item name="name" label={t('aiLibrary.terminal.name')} rules={[{ required: true, max: 100 }]}>
          <Input />
        </Form.Item>
        <Form.Item name="versionName" label={t('aiLibrary.terminal.version')} rules={[{ required: true, max: 64 }]}>
          <Input placeholder="1.0.0" />
        </Form.Item>
        <Form.Item name="framework" label={t('aiLibrary.terminal.framework')}>
          <Select options={MODEL_FRAMEWORKS.map((f) => ({ value: f, label: t(`aiLibrary.framework.${f}`) }))} />
        </Form.Item>
        <Form.Item name="inputs" label={t('aiLibrary.terminal.inputs')} rules={[{ max: 500 }]}>
          <Input.TextArea rows={2} placeholder={t('aiLibrary.terminal.inputsHint')} />
        </Form.Item>
        <Form.Item name="outputs" label={t('aiLibrary.terminal.outputs')} rules={[{ max: 500 }]}>
          <Input.TextArea rows={2} placeholder={t('aiLibrary.terminal.outputsHint')} />
        </Form.Item>
        <Form.Item name="models" label={t('aiLibrary.terminal.fits')} extra={t('aiLibrary.terminal.fitsHint')}>
          <Select mode="tags" tokenSeparators={[',', ' ']} open={false} />
        </Form.Item>
        <Form.Item name="notes" label={t('aiLibrary.terminal.notes')} rules={[{ max: 5000 }]}>
          <Input.TextArea rows={3} />
        </Form.Item>
      </Form>
    </Drawer>
  );
}
