import { Button, Card, Flex, Form, Input, Radio, Result, Select, Skeleton, Typography } from 'antd';
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import {
  WORK_ORDER_PRIORITIES,
  WORK_ORDER_SUBJECTS_MAX,
  WORK_ORDER_TYPES,
  type WorkOrderDetail,
  type WorkOrderPriority,
  type WorkOrderType,
} from '@cpc/contracts/work-order';
import { RichTextEditor } from '@/components/rich-text-editor';
import { usePageTitle } from '@/lib/page-title';
import { useDebounced } from '@/lib/use-debounced';
import { useFormLanguage } from '@/lib/use-form-language';
import { useCreateWorkOrder, useUpdateWorkOrder, useWorkOrder, useWorkOrderOptions } from '../api/work-order';
import { AttachmentInput, type PickedAttachment } from '../components/attachments';
import { objectKeyOf } from '../utils/due';
import { detailPath } from './work-order-index';

interface EditValues {
  type: WorkOrderType;
  priority: WorkOrderPriority;
  title: string;
  descriptionHtml: string;
  deviceIds: number[];
  orderIds: number[];
  attachments: PickedAttachment[];
}

/** A random id of one submission of the form (the server's `clientRequestId`: 8–64 of [A-Za-z0-9_-]). */
// getRandomValues, not randomUUID: the console may be served over plain http, where randomUUID is missing
const newRequestId = (): string =>
  Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');

const idOf = (v: string | null): number => (v && /^\d{1,15}$/.test(v) ? Number(v) : 0);

const valuesOf = (d: WorkOrderDetail): EditValues => ({
  type: d.type,
  priority: d.priority,
  title: d.title,
  descriptionHtml: d.descriptionHtml,
  deviceIds: d.devices.map((x) => x.id),
  orderIds: d.orders.map((x) => x.id),
  attachments: d.attachments.flatMap((a) => {
    const key = objectKeyOf(a);
    return key ? [{ key, name: a.name, size: a.size, url: a.url }] : [];
  }),
});

/** Opens a work order (`/workOrder/edit`), or edits one still waiting for staff (`/workOrder/edit?id=N`). */
export default function WorkOrderEditPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const id = idOf(search.get('id'));
  const existing = useWorkOrder(id);
  const [form] = Form.useForm<EditValues>();
  useFormLanguage(form);
  const create = useCreateWorkOrder();
  const update = useUpdateWorkOrder();
  const [deviceSearch, setDeviceSearch] = useState('');
  const [orderSearch, setOrderSearch] = useState('');
  const devices = useWorkOrderOptions(useDebounced(deviceSearch.trim(), 300));
  const orders = useWorkOrderOptions(useDebounced(orderSearch.trim(), 300));
  usePageTitle(id ? existing.data?.orderNo : undefined);
  // this form's submission: a double click or a retry answers the order the first send opened
  const requestId = useRef(newRequestId());

  useEffect(() => {
    if (existing.data?.can.edit) form.setFieldsValue(valuesOf(existing.data));
  }, [existing.data, form]);

  // what is chosen stays labelled while a search shows other options
  const deviceOptions = useMemo(() => {
    const map = new Map<number, string>();
    for (const d of existing.data?.devices ?? []) map.set(d.id, d.name ? `${d.name} (${d.sn})` : d.sn);
    for (const d of devices.data?.devices ?? []) map.set(d.id, d.name ? `${d.name} (${d.sn})` : d.sn);
    return [...map].map(([value, label]) => ({ value, label }));
  }, [existing.data, devices.data]);
  const orderOptions = useMemo(() => {
    const map = new Map<number, string>();
    for (const o of existing.data?.orders ?? []) map.set(o.id, o.orderNo);
    for (const o of orders.data?.orders ?? []) map.set(o.id, o.orderNo);
    return [...map].map(([value, label]) => ({ value, label }));
  }, [existing.data, orders.data]);

  if (id && existing.isLoading)
    return (
      <Card variant="borderless">
        <Skeleton active />
      </Card>
    );
  if (id && (existing.isError || (existing.data && !existing.data.can.edit)))
    return (
      <Card variant="borderless">
        <Result
          status="warning"
          title={t(existing.isError ? 'workOrder.detail.notFound' : 'workOrder.edit.locked')}
          extra={
            <Button
              type="primary"
              onClick={() => navigate(existing.isError ? '/workOrder/workOrderIndex' : detailPath(id))}
            >
              {t('workOrder.edit.back')}
            </Button>
          }
        />
      </Card>
    );

  const submit = async (v: EditValues) => {
    const body = {
      type: v.type,
      priority: v.priority,
      title: v.title.trim(),
      descriptionHtml: v.descriptionHtml ?? '',
      deviceIds: v.deviceIds ?? [],
      orderIds: v.orderIds ?? [],
      attachments: (v.attachments ?? []).map((a) => a.key),
    };
    const saved = id
      ? await update.mutateAsync({ id, ...body })
      : await create.mutateAsync({ ...body, clientRequestId: requestId.current });
    // the page stays open in its tab: the next visit starts a new order, not this one again
    if (!id) {
      form.resetFields();
      requestId.current = newRequestId();
    }
    void navigate(detailPath(saved.id), { replace: !!id });
  };

  return (
    <Card variant="borderless">
      <Flex vertical gap={16} style={{ maxWidth: 860 }}>
        <div>
          <Typography.Title level={4} style={{ margin: 0 }}>
            {id ? t('workOrder.edit.editTitle', { no: existing.data?.orderNo ?? '' }) : t('workOrder.edit.newTitle')}
          </Typography.Title>
          <Typography.Text type="secondary">{t('workOrder.edit.subtitle')}</Typography.Text>
        </div>
        <Form<EditValues>
          form={form}
          layout="vertical"
          initialValues={{
            type: 'device',
            priority: 'normal',
            descriptionHtml: '',
            deviceIds: [],
            orderIds: [],
            attachments: [],
          }}
          onFinish={(v) => void submit(v).catch(() => {})}
          data-testid="work-order-form"
        >
          <Form.Item name="type" label={t('workOrder.field.type')} rules={[{ required: true }]}>
            <Radio.Group
              optionType="button"
              options={WORK_ORDER_TYPES.map((x) => ({ value: x, label: t(`workOrder.type.${x}`) }))}
            />
          </Form.Item>
          <Form.Item name="priority" label={t('workOrder.field.priority')} rules={[{ required: true }]}>
            <Radio.Group
              optionType="button"
              options={WORK_ORDER_PRIORITIES.map((x) => ({ value: x, label: t(`workOrder.priority.${x}`) }))}
            />
          </Form.Item>
          <Form.Item
            name="title"
            label={t('workOrder.field.title')}
            rules={[{ required: true, whitespace: true, message: t('workOrder.edit.titleRequired') }]}
          >
            <Input
              maxLength={100}
              showCount
              placeholder={t('workOrder.edit.titlePlaceholder')}
              data-testid="work-order-title"
            />
          </Form.Item>
          <Form.Item name="descriptionHtml" label={t('workOrder.field.description')}>
            <RichTextEditor
              placeholder={t('workOrder.edit.descriptionPlaceholder')}
              aria-label={t('workOrder.field.description')}
              data-testid="work-order-description"
            />
          </Form.Item>
          <SubjectPicker
            name="deviceIds"
            label={t('workOrder.field.devices')}
            placeholder={t('workOrder.edit.devicesPlaceholder')}
            onSearch={setDeviceSearch}
            loading={devices.isFetching}
            options={deviceOptions}
            testId="work-order-devices"
          />
          <SubjectPicker
            name="orderIds"
            label={t('workOrder.field.orders')}
            placeholder={t('workOrder.edit.ordersPlaceholder')}
            onSearch={setOrderSearch}
            loading={orders.isFetching}
            options={orderOptions}
            testId="work-order-orders"
          />
          <Form.Item name="attachments" label={t('workOrder.field.attachments')}>
            <AttachmentInput data-testid="work-order-attachments-input" />
          </Form.Item>
          <Flex gap={8}>
            <Button
              type="primary"
              htmlType="submit"
              loading={create.isPending || update.isPending}
              data-testid="work-order-submit"
            >
              {t(id ? 'workOrder.edit.save' : 'workOrder.edit.submit')}
            </Button>
            <Button onClick={() => navigate(id ? detailPath(id) : '/workOrder/workOrderIndex')}>
              {t('workOrder.edit.cancel')}
            </Button>
          </Flex>
        </Form>
      </Flex>
    </Card>
  );
}

/** A searchable multiple choice of the customer's own devices or orders the work order is about. */
function SubjectPicker({
  name,
  label,
  placeholder,
  onSearch,
  loading,
  options,
  testId,
}: {
  name: 'deviceIds' | 'orderIds';
  label: string;
  placeholder: string;
  onSearch: (keyword: string) => void;
  loading: boolean;
  options: { value: number; label: ReactNode }[];
  testId: string;
}) {
  const { t } = useTranslation();
  return (
    <Form.Item
      name={name}
      label={label}
      rules={[
        {
          type: 'array',
          max: WORK_ORDER_SUBJECTS_MAX,
          message: t('workOrder.edit.tooMany', { n: WORK_ORDER_SUBJECTS_MAX }),
        },
      ]}
    >
      <Select
        mode="multiple"
        allowClear
        showSearch
        filterOption={false}
        onSearch={onSearch}
        onBlur={() => onSearch('')}
        loading={loading}
        options={options}
        placeholder={placeholder}
        notFoundContent={t('workOrder.edit.noneFound')}
        data-testid={testId}
      />
    </Form.Item>
  );
}
