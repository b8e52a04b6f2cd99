import { Form, Input, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { MODEL_FRAMEWORKS } from '@cpc/contracts';
import { PackageDrawer } from '@/components/package-drawer';

/** Uploads a model file and describes it: name, version, framework, inputs, outputs, fitting models. */
export function ModelUploadDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <PackageDrawer
      open={open}
      onClose={onClose}
      kind="model"
      accept=".onnx,.tflite,.bin,.param,.zip"
      title={t('aiLibrary.terminal.upload')}
      saveLabel={t('aiLibrary.terminal.save')}
      savedMessage={t('aiLibrary.terminal.saved')}
      formName="aiModel"
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
    </PackageDrawer>
  );
}
