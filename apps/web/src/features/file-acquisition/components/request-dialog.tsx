import { App, Form, Input, InputNumber, Modal, Radio, Select, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  FILE_ACQUISITION_MAX_BYTES,
  FILE_PRESET_NAMES,
  FILE_PRESETS,
  FILE_REQUEST_MAX_DAYS,
  FILE_ROOTS,
  isAllowedPath,
  type FilePreset,
} from '@cpc/contracts/file-acquisition';
import { DeviceSelect } from '@/components/device-targets';
import { useFormLanguage } from '@/lib/use-form-language';
import { askForFiles } from '../api/file-acquisition';

interface Values {
  deviceIds: number[];
  what: 'preset' | 'path';
  preset?: FilePreset;
  path?: string;
  maxMb: number;
  expireHours: number;
}

const MB = 1024 * 1024;

/** Asks one or more devices for files: a predefined set or a path pattern below the allowed roots. */
export function RequestDialog({ open, onClose, onDone }: { open: boolean; onClose: () => void; onDone: () => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const [saving, setSaving] = useState(false);
  const what = Form.useWatch('what', form) ?? 'preset';

  const submit = async () => {
    // a form with errors shows them in place
    const v = await form.validateFields().catch(() => null);
    if (!v) return;
    setSaving(true);
    try {
      const items = await askForFiles({
        deviceIds: v.deviceIds,
        ...(v.what === 'preset' ? { preset: v.preset } : { path: v.path }),
        maxBytes: Math.round(v.maxMb * MB),
        expireHours: v.expireHours,
      });
      message.success(t('fileAcquisition.asked', { n: items.length }));
      form.resetFields();
      onDone();
    } catch {
      // the request layer has said what went wrong; the dialog stays open to fix it
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      open={open}
      title={t('fileAcquisition.ask')}
      okText={t('fileAcquisition.send')}
      onOk={() => void submit()}
      confirmLoading={saving}
      onCancel={onClose}
      destroyOnHidden
      data-testid="file-request-dialog"
    >
      <Form<Values>
        form={form}
        layout="vertical"
        initialValues={{ what: 'preset', preset: 'print_log', maxMb: 20, expireHours: 72 }}
      >
        <Form.Item name="deviceIds" label={t('fileAcquisition.form.devices')} rules={[{ required: true }]}>
          <DeviceSelect
            enabled={open}
            placeholder={t('fileAcquisition.form.devicesHint')}
            data-testid="file-request-devices"
          />
        </Form.Item>
        <Form.Item name="what" label={t('fileAcquisition.form.what')}>
          <Radio.Group
            optionType="button"
            options={[
              { value: 'preset', label: t('fileAcquisition.form.preset') },
              { value: 'path', label: t('fileAcquisition.form.path') },
            ]}
          />
        </Form.Item>
        {what === 'preset' ? (
          <Form.Item name="preset" label={t('fileAcquisition.form.preset')} rules={[{ required: true }]}>
            <Select
              options={FILE_PRESET_NAMES.map((p) => ({
                value: p,
                label: `${t(`fileAcquisition.preset.${p}`)} — ${FILE_PRESETS[p]}`,
              }))}
              data-testid="file-request-preset"
            />
          </Form.Item>
        ) : (
          <Form.Item
            name="path"
            label={t('fileAcquisition.form.path')}
            extra={
              <Typography.Text type="secondary">
                {t('fileAcquisition.form.roots', { roots: FILE_ROOTS.join('  ') })}
              </Typography.Text>
            }
            rules={[
              { required: true },
              {
                validator: (_, v: string | undefined) =>
                  !v || isAllowedPath(v.trim())
                    ? Promise.resolve()
                    : Promise.reject(new Error(t('fileAcquisition.form.pathNotAllowed'))),
              },
            ]}
          >
            <Input placeholder="/data/log/print/*.log" maxLength={255} data-testid="file-request-path" />
          </Form.Item>
        )}
        <Form.Item name="maxMb" label={t('fileAcquisition.form.maxMb')} rules={[{ required: true }]}>
          <InputNumber min={1} max={FILE_ACQUISITION_MAX_BYTES / MB} precision={0} addonAfter="MB" />
        </Form.Item>
        <Form.Item
          name="expireHours"
          label={t('fileAcquisition.form.expire')}
          extra={t('fileAcquisition.form.expireHint')}
        >
          <Select
            options={[1, 24, 72, FILE_REQUEST_MAX_DAYS * 24].map((h) => ({
              value: h,
              label: h < 24 ? t('fileAcquisition.hours', { n: h }) : t('fileAcquisition.days', { n: h / 24 }),
            }))}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
