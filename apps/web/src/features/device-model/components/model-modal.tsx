import { Form, Input, InputNumber, Modal, Radio, Select } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { ModelKind } from '@cpc/contracts/device';
import type { DeviceModelView } from '@cpc/contracts/device-model';
import { MODEL_KINDS } from '@cpc/contracts/device-constants';
import { useAddModel, useEditModel } from '../api/device-model';
import {
  NAME_MAX,
  PAPER_WIDTH_MAX,
  SUGGESTED_CAPABILITIES,
  checkCapabilities,
  checkCode,
  checkName,
  formFieldErrors,
  toRule,
} from '../utils/rules';
import { useFormLanguage } from '@/lib/use-form-language';

interface Values {
  code: string;
  name: string;
  kind: ModelKind;
  paperWidthMm: number | null;
  capabilities: string[];
}
const FIELDS = ['code', 'name', 'kind', 'paperWidthMm', 'capabilities'] as const;
const DEFAULTS: Values = { code: '', name: '', kind: 'printer', paperWidthMm: 58, capabilities: ['print'] };

interface ModelModalProps {
  open: boolean;
  /** The model to edit; none creates one. */
  record: DeviceModelView | null;
  onClose: () => void;
  onSaved: (model: DeviceModelView, created: boolean) => void;
}

/** Create or edit a catalogue model: code, name, kind, paper width and capabilities as tags. */
export function ModelModal({ open, record, onClose, onSaved }: ModelModalProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const add = useAddModel();
  const edit = useEditModel();

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    form.setFieldsValue(
      record
        ? {
            code: record.code,
            name: record.name,
            kind: record.kind,
            paperWidthMm: record.paperWidthMm,
            capabilities: record.capabilities,
          }
        : DEFAULTS,
    );
  }, [open, record, form]);

  const submit = async () => {
    let values: Values;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    const body = {
      code: values.code.trim(),
      name: values.name.trim(),
      kind: values.kind,
      paperWidthMm: values.paperWidthMm ?? 0,
      capabilities: (values.capabilities ?? []).map((c) => c.trim()),
    };
    try {
      const saved = record ? await edit.mutateAsync({ id: record.id, ...body }) : await add.mutateAsync(body);
      onSaved(saved, !record);
    } catch (err) {
      form.setFields(formFieldErrors(err, FIELDS, t));
    }
  };

  return (
    <Modal
      open={open}
      title={record ? t('deviceModel.form.editTitle', { code: record.code }) : t('deviceModel.form.createTitle')}
      okText={record ? t('deviceModel.form.save') : t('deviceModel.form.create')}
      cancelText={t('deviceModel.cancel')}
      confirmLoading={add.isPending || edit.isPending}
      onOk={() => void submit()}
      onCancel={onClose}
      forceRender
    >
      <Form<Values>
        name="deviceModel"
        form={form}
        layout="vertical"
        initialValues={DEFAULTS}
        onFinish={() => void submit()}
      >
        <Form.Item
          name="code"
          label={t('deviceModel.form.code')}
          extra={t('deviceModel.form.codeHint')}
          rules={[toRule(checkCode, t)]}
          required
        >
          <Input maxLength={32} autoComplete="off" placeholder="CP-58A" />
        </Form.Item>
        <Form.Item name="name" label={t('deviceModel.form.name')} rules={[toRule(checkName, t)]} required>
          <Input maxLength={NAME_MAX + 10} placeholder={t('deviceModel.form.namePlaceholder')} />
        </Form.Item>
        <Form.Item name="kind" label={t('deviceModel.form.kind')} required>
          <Radio.Group
            optionType="button"
            options={MODEL_KINDS.map((k) => ({ value: k, label: t(`deviceModel.kind.${k}`) }))}
          />
        </Form.Item>
        <Form.Item
          name="paperWidthMm"
          label={t('deviceModel.form.paperWidth')}
          extra={t('deviceModel.form.paperWidthHint')}
        >
          <InputNumber min={0} max={PAPER_WIDTH_MAX} precision={0} suffix="mm" style={{ width: 160 }} />
        </Form.Item>
        <Form.Item
          name="capabilities"
          label={t('deviceModel.form.capabilities')}
          extra={t('deviceModel.form.capabilitiesHint')}
          rules={[toRule(checkCapabilities, t)]}
        >
          <Select
            mode="tags"
            tokenSeparators={[',', ' ']}
            placeholder={t('deviceModel.form.capabilitiesPlaceholder')}
            options={SUGGESTED_CAPABILITIES.map((c) => ({ value: c, label: c }))}
          />
        </Form.Item>
        {/* Enter in a field submits the form */}
        <button type="submit" hidden aria-hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}
