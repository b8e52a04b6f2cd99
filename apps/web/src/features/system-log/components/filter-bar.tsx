import { AutoComplete, DatePicker, Form, Grid, Input, InputNumber, Select } from 'antd';
import type { Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import { FilterActions } from '@/components/list-page';
import { useFormLanguage } from '@/lib/use-form-language';
import { KNOWN_ACTIONS, actionKey, type LogFilter } from '../utils/filter';

interface FilterValues {
  user?: string;
  action?: string;
  resource?: string;
  resourceId?: string;
  result?: LogFilter['result'];
  range?: [Dayjs | null, Dayjs | null] | null;
  tenantId?: number | null;
}

const RESOURCES = [
  'user',
  'device',
  'device_group',
  'device_model',
  'app_key',
  'tenant',
  'identity_submission',
  'route',
];

interface FilterBarProps {
  staff: boolean;
  exporting: boolean;
  onSearch: (filter: LogFilter) => void;
  onExport: () => void;
}

/** Search by user, action (or its beginning), object, result, time and — staff — tenant; export the result. */
export function FilterBar({ staff, exporting, onSearch, onExport }: FilterBarProps) {
  const { t, i18n } = useTranslation();
  const [form] = Form.useForm<FilterValues>();
  useFormLanguage(form);
  // a phone: every field on a line of its own, as wide as the screen
  const narrow = !Grid.useBreakpoint().sm;
  const w = (px: number) => ({ width: narrow ? '100%' : px });
  const item = narrow ? { style: { width: '100%', marginInlineEnd: 0 } } : {};

  const submit = (v: FilterValues) =>
    onSearch({
      user: v.user,
      action: v.action,
      resource: v.resource,
      resourceId: v.resourceId,
      result: v.result,
      from: v.range?.[0]?.toISOString(),
      to: v.range?.[1]?.toISOString(),
      tenantId: v.tenantId ?? undefined,
    });

  const actionOptions = KNOWN_ACTIONS.map((a) => ({
    value: a,
    label: i18n.exists(`systemLog.actions.${actionKey(a)}`) ? `${t(`systemLog.actions.${actionKey(a)}`)} · ${a}` : a,
  }));

  return (
    <Form<FilterValues>
      form={form}
      layout="inline"
      onFinish={submit}
      style={{ rowGap: 12 }}
      aria-label={t('systemLog.filter.label')}
    >
      <Form.Item name="user" {...item}>
        <Input allowClear placeholder={t('systemLog.filter.user')} maxLength={50} style={w(150)} />
      </Form.Item>
      <Form.Item name="action" {...item}>
        <AutoComplete
          allowClear
          options={actionOptions}
          placeholder={t('systemLog.filter.action')}
          style={w(200)}
          filterOption={(input, option) =>
            !!option && (option.value.startsWith(input) || String(option.label).includes(input))
          }
        />
      </Form.Item>
      <Form.Item name="resource" {...item}>
        <Select
          allowClear
          placeholder={t('systemLog.filter.resource')}
          style={w(150)}
          options={RESOURCES.map((r) => ({ value: r, label: r }))}
        />
      </Form.Item>
      <Form.Item name="resourceId" {...item}>
        <Input allowClear placeholder={t('systemLog.filter.resourceId')} maxLength={100} style={w(130)} />
      </Form.Item>
      <Form.Item name="result" {...item}>
        <Select
          allowClear
          placeholder={t('systemLog.filter.result')}
          style={w(120)}
          options={(['ok', 'fail', 'denied'] as const).map((r) => ({ value: r, label: t(`systemLog.result.${r}`) }))}
        />
      </Form.Item>
      <Form.Item name="range" {...item}>
        <DatePicker.RangePicker
          showTime
          allowEmpty={[true, true]}
          placeholder={[t('systemLog.filter.from'), t('systemLog.filter.to')]}
          style={narrow ? { width: '100%' } : undefined}
        />
      </Form.Item>
      {staff && (
        <Form.Item name="tenantId" {...item}>
          <InputNumber min={1} placeholder={t('systemLog.filter.tenant')} style={w(130)} />
        </Form.Item>
      )}
      <FilterActions
        onReset={() => {
          form.resetFields();
          onSearch({});
        }}
        onExport={onExport}
        exporting={exporting}
      />
    </Form>
  );
}
