import { Checkbox, DatePicker, Form, Grid, Input, Select } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import {
  WORK_ORDER_PRIORITIES,
  WORK_ORDER_STATES,
  WORK_ORDER_TYPES,
  type WorkOrderPriority,
  type WorkOrderState,
  type WorkOrderType,
} from '@cpc/contracts/work-order';
import { FilterActions } from '@/components/list-page';
import { useFormLanguage } from '@/lib/use-form-language';
import type { WorkOrderFilter } from '../utils/filter';

interface FilterValues {
  state?: WorkOrderState[];
  type?: WorkOrderType;
  priority?: WorkOrderPriority;
  range?: [Dayjs | null, Dayjs | null] | null;
  keyword?: string;
  unread?: boolean;
  assignee?: string;
  overdue?: boolean;
}

interface FilterBarProps {
  filter: WorkOrderFilter;
  /** Staff: the assignee and overdue filters, and the staff members to pick from. */
  staff: boolean;
  assignees?: Array<{ id: number; name: string }>;
  onSearch: (filter: WorkOrderFilter) => void;
}

/** State, type, priority, time range, keyword, unread; staff also assignee and overdue. The URL holds what applies. */
export function FilterBar({ filter, staff, assignees, onSearch }: FilterBarProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<FilterValues>();
  useFormLanguage(form);
  const narrow = !Grid.useBreakpoint().sm;
  const w = (px: number) => ({ width: narrow ? '100%' : px });
  const item = narrow ? { style: { width: '100%', marginInlineEnd: 0 } } : {};

  // a link or the back button changes the URL: the fields follow it
  useEffect(() => {
    form.setFieldsValue({
      state: filter.state ?? [],
      type: filter.type,
      priority: filter.priority,
      range:
        filter.from || filter.to
          ? [filter.from ? dayjs(filter.from) : null, filter.to ? dayjs(filter.to) : null]
          : null,
      keyword: filter.keyword,
      unread: filter.unread ?? false,
      assignee: filter.assignee,
      overdue: filter.overdue ?? false,
    });
  }, [filter, form]);

  const submit = (v: FilterValues) =>
    onSearch({
      state: v.state?.length ? v.state : undefined,
      type: v.type || undefined,
      priority: v.priority || undefined,
      from: v.range?.[0] ? v.range[0].startOf('day').toISOString() : undefined,
      to: v.range?.[1] ? v.range[1].endOf('day').toISOString() : undefined,
      keyword: v.keyword?.trim() || undefined,
      unread: v.unread || undefined,
      assignee: staff ? v.assignee || undefined : undefined,
      overdue: staff ? v.overdue || undefined : undefined,
    });

  return (
    <Form<FilterValues>
      form={form}
      layout="inline"
      onFinish={submit}
      style={{ rowGap: 12 }}
      aria-label={t('workOrder.filter.label')}
    >
      <Form.Item name="state" {...item}>
        <Select
          mode="multiple"
          allowClear
          maxTagCount="responsive"
          placeholder={t('workOrder.filter.state')}
          style={w(200)}
          data-testid="work-order-filter-state"
          options={WORK_ORDER_STATES.map((s) => ({ value: s, label: t(`workOrder.state.${s}`) }))}
        />
      </Form.Item>
      <Form.Item name="type" {...item}>
        <Select
          allowClear
          placeholder={t('workOrder.filter.type')}
          style={w(130)}
          data-testid="work-order-filter-type"
          options={WORK_ORDER_TYPES.map((s) => ({ value: s, label: t(`workOrder.type.${s}`) }))}
        />
      </Form.Item>
      <Form.Item name="priority" {...item}>
        <Select
          allowClear
          placeholder={t('workOrder.filter.priority')}
          style={w(110)}
          options={WORK_ORDER_PRIORITIES.map((s) => ({ value: s, label: t(`workOrder.priority.${s}`) }))}
        />
      </Form.Item>
      <Form.Item name="range" {...item}>
        <DatePicker.RangePicker
          allowEmpty={[true, true]}
          placeholder={[t('workOrder.filter.from'), t('workOrder.filter.to')]}
          style={w(240)}
        />
      </Form.Item>
      {staff && (
        <Form.Item name="assignee" {...item}>
          <Select
            allowClear
            showSearch
            optionFilterProp="label"
            placeholder={t('workOrder.filter.assignee')}
            style={w(140)}
            data-testid="work-order-filter-assignee"
            options={[
              { value: 'me', label: t('workOrder.filter.me') },
              { value: 'none', label: t('workOrder.filter.unassigned') },
              ...(assignees ?? []).map((a) => ({ value: String(a.id), label: a.name })),
            ]}
          />
        </Form.Item>
      )}
      <Form.Item name="keyword" {...item}>
        <Input
          allowClear
          maxLength={50}
          placeholder={t(staff ? 'workOrder.filter.keywordStaff' : 'workOrder.filter.keyword')}
          style={w(200)}
        />
      </Form.Item>
      <Form.Item name="unread" valuePropName="checked">
        <Checkbox>{t('workOrder.filter.unread')}</Checkbox>
      </Form.Item>
      {staff && (
        <Form.Item name="overdue" valuePropName="checked">
          <Checkbox data-testid="work-order-filter-overdue">{t('workOrder.filter.overdue')}</Checkbox>
        </Form.Item>
      )}
      <FilterActions
        onReset={() => {
          form.resetFields();
          onSearch({});
        }}
      />
    </Form>
  );
}
