import { AutoComplete, Col, Divider, Form, Input, Modal, Row, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DeviceModelOption } from '@cpc/contracts/device-model';
import type { RegisteredDevice } from '@cpc/contracts/device-registry';
import { useRegisterDevice } from '../api/registry';
import { registerFieldErrors, type RegisterField } from '../utils/messages';
import { checks, registerBody, toRule } from '../utils/rules';
import { useFormLanguage } from '@/lib/use-form-language';

type Values = Partial<Record<RegisterField, string>>;

interface RegisterModalProps {
  open: boolean;
  models: DeviceModelOption[];
  onClose: () => void;
  onRegistered: (devices: RegisteredDevice[]) => void;
}

/** Registers one device at the factory; what is left empty the server generates. */
export function RegisterModal({ open, models, onClose, onRegistered }: RegisterModalProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const register = useRegisterDevice();
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    if (open) {
      form.resetFields();
      setFailure(null);
    }
  }, [open, form]);

  const submit = async () => {
    let values: Values;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    setFailure(null);
    try {
      const result = await register.mutateAsync(registerBody(values));
      onRegistered(result.devices);
    } catch (err) {
      const { fields, other } = registerFieldErrors(err, t);
      form.setFields(fields);
      setFailure(other);
    }
  };

  const optional = (name: Exclude<RegisterField, 'sn' | 'model'>, maxLength: number, inputMode?: 'numeric') => (
    <Form.Item name={name} label={t(`deviceRegistry.form.${name}`)} rules={[toRule(checks[name], t)]}>
      <Input
        maxLength={maxLength}
        autoComplete="off"
        inputMode={inputMode}
        placeholder={t('deviceRegistry.form.generated')}
      />
    </Form.Item>
  );

  return (
    <Modal
      open={open}
      title={t('deviceRegistry.form.title')}
      okText={t('deviceRegistry.form.submit')}
      cancelText={t('deviceRegistry.cancel')}
      confirmLoading={register.isPending}
      onOk={() => void submit()}
      onCancel={onClose}
      width={640}
      forceRender
    >
      <Form<Values> name="registerDevice" form={form} layout="vertical" onFinish={() => void submit()}>
        <Row gutter={16}>
          <Col xs={24} sm={12}>
            <Form.Item name="sn" label={t('deviceRegistry.form.sn')} rules={[toRule(checks.sn, t)]} required>
              <Input maxLength={32} autoComplete="off" placeholder="CP58-000001" />
            </Form.Item>
          </Col>
          <Col xs={24} sm={12}>
            <Form.Item name="model" label={t('deviceRegistry.form.model')} rules={[toRule(checks.model, t)]} required>
              <AutoComplete
                placeholder={t('deviceRegistry.form.modelPlaceholder')}
                options={models.map((m) => ({ value: m.code, label: `${m.code} · ${m.name}` }))}
                filterOption={(input, option) =>
                  String(option?.label ?? '')
                    .toLowerCase()
                    .includes(input.toLowerCase())
                }
              />
            </Form.Item>
          </Col>
        </Row>
        <Divider plain style={{ margin: '4px 0 12px' }}>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t('deviceRegistry.form.optional')}
          </Typography.Text>
        </Divider>
        <Row gutter={16}>
          <Col xs={24} sm={12}>
            {optional('bindKey', 32)}
          </Col>
          <Col xs={24} sm={12}>
            {optional('secret', 128)}
          </Col>
          <Col xs={24} sm={12}>
            {optional('iccid', 20, 'numeric')}
          </Col>
          <Col xs={24} sm={12}>
            {optional('imei', 15, 'numeric')}
          </Col>
        </Row>
        {failure && <Typography.Text type="danger">{failure}</Typography.Text>}
        <button type="submit" hidden aria-hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}
