import { Form, Input, Modal, Rate, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { useFormLanguage } from '@/lib/use-form-language';

/** The customer rates a closed order: 1–5 stars and a comment. */
export function RateModal({
  open,
  saving,
  onCancel,
  onRate,
}: {
  open: boolean;
  saving: boolean;
  onCancel: () => void;
  onRate: (v: { rating: number; comment: string }) => Promise<unknown>;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ rating: number; comment: string }>();
  useFormLanguage(form);
  return (
    <Modal
      open={open}
      title={t('workOrder.rate.title')}
      okText={t('workOrder.rate.submit')}
      confirmLoading={saving}
      onCancel={onCancel}
      onOk={() =>
        void form
          .validateFields()
          .then((v) => onRate({ rating: v.rating, comment: (v.comment ?? '').trim() }))
          .catch(() => {})
      }
      destroyOnHidden
    >
      <Form form={form} layout="vertical" preserve={false} data-testid="work-order-rate-form">
        <Form.Item
          name="rating"
          label={t('workOrder.rate.stars')}
          rules={[{ required: true, message: t('workOrder.rate.required') }]}
        >
          <Rate data-testid="work-order-rate-stars" />
        </Form.Item>
        <Form.Item name="comment" label={t('workOrder.rate.comment')}>
          <Input.TextArea maxLength={500} showCount rows={3} data-testid="work-order-rate-comment" />
        </Form.Item>
      </Form>
    </Modal>
  );
}

/** Staff assign the order to a staff member, or back to the unassigned queue. */
export function AssignModal({
  open,
  current,
  assignees,
  saving,
  onCancel,
  onAssign,
}: {
  open: boolean;
  current: number | null;
  assignees: Array<{ id: number; name: string }>;
  saving: boolean;
  onCancel: () => void;
  onAssign: (assigneeId: number | null) => Promise<unknown>;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ assigneeId: number | 0 }>();
  useFormLanguage(form);
  return (
    <Modal
      open={open}
      title={t('workOrder.assign.title')}
      okText={t('workOrder.assign.submit')}
      confirmLoading={saving}
      onCancel={onCancel}
      onOk={() =>
        void form
          .validateFields()
          .then((v) => onAssign(v.assigneeId || null))
          .catch(() => {})
      }
      destroyOnHidden
    >
      <Form form={form} layout="vertical" preserve={false} initialValues={{ assigneeId: current ?? 0 }}>
        <Form.Item name="assigneeId" label={t('workOrder.assign.to')}>
          <Select
            showSearch
            optionFilterProp="label"
            data-testid="work-order-assign-select"
            options={[
              { value: 0, label: t('workOrder.unassigned') },
              ...assignees.map((a) => ({ value: a.id, label: a.name })),
            ]}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
