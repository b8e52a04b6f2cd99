import { Alert, App, Form, Input, InputNumber, Modal } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { AppKeyView, AppKeyWithSecret } from '@cpc/contracts/integration';
import { CALLBACK_URL_MAX } from '@cpc/contracts/integration-constants';
import { useCreateKey, useUpdateKey } from '../api/integration';
import {
  LIMITS,
  checkCallbackUrl,
  checkIpAllowList,
  checkKeyName,
  checkRateLimit,
  fieldErrors,
  splitIpList,
  toRule,
} from '../utils/rules';
import { useFormLanguage } from '@/lib/use-form-language';

interface Values {
  name: string;
  callbackUrl: string;
  /** One address or block a line (commas and spaces separate too). */
  ipAllowList: string;
  /** Calls per second; empty follows the server's default. */
  rateLimit: number | null;
}
const FIELDS = ['name', 'callbackUrl', 'ipAllowList', 'rateLimit'] as const;
const DEFAULTS: Values = { name: '', callbackUrl: '', ipAllowList: '', rateLimit: null };

interface KeyModalProps {
  open: boolean;
  /** The key to edit; none creates one. */
  record: AppKeyView | null;
  onClose: () => void;
  onCreated: (key: AppKeyWithSecret) => void;
  onSaved: (key: AppKeyView) => void;
}

/** Create or edit an app key: its name, callback URL, IP allow-list and rate limit. */
export function KeyModal({ open, record, onClose, onCreated, onSaved }: KeyModalProps) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const create = useCreateKey();
  const update = useUpdateKey();
  const callbackUrl = Form.useWatch('callbackUrl', form);
  // the server tells an internal address (in any spelling) from the saved URL: shown while that URL is kept
  const privateCallback = !!record?.callbackPrivate && (callbackUrl ?? '').trim() === record.callbackUrl;

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    form.setFieldsValue(
      record
        ? {
            name: record.name,
            callbackUrl: record.callbackUrl,
            ipAllowList: record.ipAllowList.join('\n'),
            rateLimit: record.rateLimit,
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
    // an emptied field is null: the key follows the server's default again
    const body = {
      name: values.name.trim(),
      callbackUrl: (values.callbackUrl ?? '').trim(),
      ipAllowList: splitIpList(values.ipAllowList),
      rateLimit: values.rateLimit ?? null,
    };
    try {
      if (record) onSaved(await update.mutateAsync({ id: record.id, ...body }));
      else onCreated(await create.mutateAsync(body));
    } catch (err) {
      const { fields, other } = fieldErrors(err, FIELDS, t);
      form.setFields(fields);
      if (other) message.error(other);
    }
  };

  return (
    <Modal
      open={open}
      title={record ? t('integration.form.editTitle', { name: record.name }) : t('integration.form.createTitle')}
      okText={record ? t('integration.form.save') : t('integration.form.create')}
      cancelText={t('integration.cancel')}
      confirmLoading={create.isPending || update.isPending}
      onOk={() => void submit()}
      onCancel={onClose}
      forceRender
    >
      <Form<Values> name="appKey" form={form} layout="vertical" initialValues={DEFAULTS} onFinish={() => void submit()}>
        <Form.Item name="name" label={t('integration.form.name')} rules={[toRule(checkKeyName, t)]} required>
          <Input
            maxLength={LIMITS.nameMax + 10}
            placeholder={t('integration.form.namePlaceholder')}
            autoComplete="off"
          />
        </Form.Item>
        <Form.Item
          name="callbackUrl"
          label={t('integration.form.callbackUrl')}
          extra={t('integration.form.callbackUrlHint')}
          rules={[toRule(checkCallbackUrl, t)]}
        >
          <Input
            maxLength={CALLBACK_URL_MAX + 10}
            placeholder="https://example.com/cpc/callback"
            autoComplete="off"
            inputMode="url"
          />
        </Form.Item>
        {privateCallback && (
          <Alert
            type="warning"
            showIcon
            title={t('integration.form.callbackPrivate')}
            style={{ marginBottom: 16 }}
            data-testid="callback-private-warning"
          />
        )}
        <Form.Item
          name="ipAllowList"
          label={t('integration.form.ipAllowList')}
          extra={t('integration.form.ipAllowListHint', LIMITS)}
          rules={[toRule((v: string | undefined) => checkIpAllowList(splitIpList(v)), t)]}
        >
          <Input.TextArea
            autoSize={{ minRows: 2, maxRows: 6 }}
            placeholder={t('integration.form.ipAllowListPlaceholder')}
            spellCheck={false}
          />
        </Form.Item>
        <Form.Item
          name="rateLimit"
          label={t('integration.form.rateLimit')}
          extra={t('integration.form.rateLimitHint', LIMITS)}
          rules={[toRule(checkRateLimit, t)]}
        >
          <InputNumber<number>
            style={{ width: '100%' }}
            precision={0}
            placeholder={
              record && record.rateLimit === null
                ? t('integration.form.rateLimitDefault', { n: record.effectiveRateLimit })
                : t('integration.form.rateLimitPlaceholder')
            }
            suffix={t('integration.form.rateLimitUnit')}
          />
        </Form.Item>
        {/* Enter in a field submits the form */}
        <button type="submit" hidden aria-hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}
