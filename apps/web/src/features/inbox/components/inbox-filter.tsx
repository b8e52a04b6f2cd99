import { DatePicker, Form, Grid, Input, Select } from 'antd';
import type { Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import { FilterActions } from '@/components/list-page';
import { useFormLanguage } from '@/lib/use-form-language';
import type { InboxFilter } from '../api/inbox';
import { MESSAGE_GROUPS, type MessageGroup } from '../utils/kinds';

interface FilterValues {
  group?: MessageGroup;
  read?: 'read' | 'unread';
  range?: [Dayjs | null, Dayjs | null] | null;
  keyword?: string;
}

/** The inbox's filters: what it is about, read or not, when, and words in its title or text. */
export function InboxFilterBar({ onSearch }: { onSearch: (f: InboxFilter) => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<FilterValues>();
  useFormLanguage(form);
  // a phone: every field on a line of its own, as wide as the screen
  const narrow = !Grid.useBreakpoint().sm;
  const w = (px: number) => ({ width: narrow ? '100%' : px });
  const item = narrow ? { style: { width: '100%', marginInlineEnd: 0 } } : {};

  const submit = (v: FilterValues) =>
    onSearch({
      group: v.group,
      read: v.read,
      from: v.range?.[0]?.startOf('day').toISOString(),
      to: v.range?.[1]?.endOf('day').toISOString(),
      keyword: v.keyword?.trim() || undefined,
    });

  return (
    <Form<FilterValues>
      form={form}
      layout="inline"
      onFinish={submit}
      style={{ rowGap: 12 }}
      aria-label={t('inbox.filter.label')}
    >
      <Form.Item name="group" {...item}>
        <Select
          allowClear
          placeholder={t('inbox.filter.group')}
          style={w(140)}
          data-testid="inbox-filter-group"
          options={MESSAGE_GROUPS.map((g) => ({ value: g, label: t(`inbox.group.${g}`) }))}
        />
      </Form.Item>
      <Form.Item name="read" {...item}>
        <Select
          allowClear
          placeholder={t('inbox.filter.read')}
          style={w(120)}
          data-testid="inbox-filter-read"
          options={[
            { value: 'unread', label: t('inbox.filter.unread') },
            { value: 'read', label: t('inbox.filter.readOnly') },
          ]}
        />
      </Form.Item>
      <Form.Item name="range" {...item}>
        <DatePicker.RangePicker
          style={w(250)}
          placeholder={[t('inbox.filter.from'), t('inbox.filter.to')]}
          allowEmpty={[true, true]}
        />
      </Form.Item>
      <Form.Item name="keyword" {...item}>
        <Input
          allowClear
          placeholder={t('inbox.filter.keyword')}
          maxLength={50}
          style={w(180)}
          data-testid="inbox-filter-keyword"
        />
      </Form.Item>
      <FilterActions
        onReset={() => {
          form.resetFields();
          form.submit();
        }}
        searchTestId="inbox-search"
      />
    </Form>
  );
}
