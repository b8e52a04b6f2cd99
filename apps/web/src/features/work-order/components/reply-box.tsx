import { SendOutlined } from '@ant-design/icons';
import { Button, Flex, Form, Radio, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { WORK_ORDER_REPLY_ACTIONS, type WorkOrderReplyBody } from '@cpc/contracts/work-order';
import { RichTextEditor } from '@/components/rich-text-editor';
import { useFormLanguage } from '@/lib/use-form-language';
import { useCannedReplies } from '../api/work-order';
import { hasRichContent } from '../utils/attachment';
import { AttachmentInput, type PickedAttachment } from './attachments';

type ReplyAction = (typeof WORK_ORDER_REPLY_ACTIONS)[number];

interface ReplyValues {
  bodyHtml: string;
  attachments: PickedAttachment[];
  action: ReplyAction;
}

interface ReplyBoxProps {
  orderId: number;
  /** Staff choose what the reply does (answer, ask, internal note, resolve) and may insert a canned reply. */
  staff: boolean;
  /** Staff may resolve now. */
  canResolve: boolean;
  sending: boolean;
  onSend: (body: WorkOrderReplyBody) => Promise<unknown>;
}

/** The reply box under the conversation: rich text and attachments; staff also the action and canned replies. */
export function ReplyBox({ orderId, staff, canResolve, sending, onSend }: ReplyBoxProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<ReplyValues>();
  useFormLanguage(form);
  const canned = useCannedReplies(staff);
  const action = Form.useWatch('action', form) ?? 'reply';
  const actions = WORK_ORDER_REPLY_ACTIONS.filter((a) => a !== 'resolve' || canResolve);

  const submit = async (v: ReplyValues) => {
    await onSend({
      id: orderId,
      bodyHtml: v.bodyHtml ?? '',
      attachments: (v.attachments ?? []).map((a) => a.key),
      action: staff ? v.action : 'reply',
    });
    // the action stays chosen; the text and the files go
    form.setFieldsValue({ bodyHtml: '', attachments: [] });
  };

  return (
    <Form<ReplyValues>
      form={form}
      layout="vertical"
      initialValues={{ bodyHtml: '', attachments: [], action: 'reply' }}
      onFinish={(v) => void submit(v).catch(() => {})}
      // "write something" is said on sending only; writing clears it
      onValuesChange={(changed: Partial<ReplyValues>) => {
        if (hasRichContent(changed.bodyHtml)) form.setFields([{ name: 'bodyHtml', errors: [] }]);
      }}
      data-testid="work-order-reply-form"
    >
      {staff && (
        <Flex gap={8} wrap justify="space-between" style={{ marginBottom: 12 }}>
          <Form.Item name="action" noStyle>
            <Radio.Group
              optionType="button"
              buttonStyle="solid"
              data-testid="work-order-reply-action"
              options={actions.map((a) => ({ value: a, label: t(`workOrder.reply.action.${a}`) }))}
            />
          </Form.Item>
          <Select
            allowClear
            showSearch
            optionFilterProp="label"
            style={{ minWidth: 180 }}
            placeholder={t('workOrder.reply.canned')}
            value={null}
            data-testid="work-order-canned-picker"
            notFoundContent={t('workOrder.canned.empty')}
            options={(canned.data ?? []).map((c) => ({ value: c.id, label: c.title }))}
            onChange={(cid: number | null) => {
              const c = canned.data?.find((x) => x.id === cid);
              if (!c) return;
              const current = form.getFieldValue('bodyHtml') as string;
              form.setFieldValue('bodyHtml', hasRichContent(current) ? `${current}${c.bodyHtml}` : c.bodyHtml);
            }}
          />
        </Flex>
      )}
      <Form.Item
        name="bodyHtml"
        rules={[
          {
            validateTrigger: 'onSubmit',
            validator: (_, v: string) =>
              action === 'resolve' || hasRichContent(v)
                ? Promise.resolve()
                : Promise.reject(new Error(t('workOrder.reply.required'))),
          },
        ]}
      >
        <RichTextEditor
          minHeight={100}
          placeholder={t(action === 'note' ? 'workOrder.reply.notePlaceholder' : 'workOrder.reply.placeholder')}
          aria-label={t('workOrder.reply.label')}
          data-testid="work-order-reply-editor"
        />
      </Form.Item>
      <Form.Item name="attachments">
        <AttachmentInput />
      </Form.Item>
      <Button
        type="primary"
        htmlType="submit"
        icon={<SendOutlined />}
        loading={sending}
        danger={false}
        data-testid="work-order-reply-send"
      >
        {t(`workOrder.reply.send.${staff ? action : 'reply'}`)}
      </Button>
    </Form>
  );
}
