import { Form, Input, Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { checkReason, REASON_MAX } from '../utils/reason';
import { useFormLanguage } from '@/lib/use-form-language';

interface RejectModalProps {
  open: boolean;
  /** Who is being rejected, shown in the title. */
  name?: string;
  confirming: boolean;
  onCancel: () => void;
  onSubmit: (reason: string) => Promise<void>;
}

/** Asks the reason a submission is rejected (required, 2–200 characters) before rejecting it. */
export function RejectModal({ open, name, confirming, onCancel, onSubmit }: RejectModalProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ reason: string }>();
  useFormLanguage(form);

  const onOk = async () => {
    let reason: string;
    try {
      ({ reason } = await form.validateFields());
    } catch {
      return;
    }
    await onSubmit(reason.trim());
  };

  return (
    <Modal
      open={open}
      title={t('identity.reject.title')}
      okText={t('identity.reject.ok')}
      cancelText={t('identity.cancel')}
      okButtonProps={{ danger: true, loading: confirming }}
      onOk={() => void onOk()}
      onCancel={onCancel}
      destroyOnHidden
    >
      {name && (
        <Typography.Title level={5} style={{ marginTop: 0 }}>
          {name}
        </Typography.Title>
      )}
      <Typography.Paragraph type="secondary">{t('identity.reject.description')}</Typography.Paragraph>
      <Form form={form} layout="vertical" requiredMark={false}>
        <Form.Item
          name="reason"
          label={t('identity.reject.reason')}
          rules={[
            {
              validator: async (_r, v) => {
                const key = checkReason(v);
                if (key) throw new Error(t(key));
              },
            },
          ]}
        >
          <Input.TextArea
            rows={4}
            showCount
            maxLength={REASON_MAX}
            placeholder={t('identity.reject.placeholder')}
            autoFocus
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
