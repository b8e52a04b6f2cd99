import { Form, Grid, Input, InputNumber, Select, TreeSelect } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { SIM_STATES } from '@cpc/contracts/device-constants';
import type { SimState, GroupNode } from '@cpc/contracts/device';
import { FilterActions } from '@/components/list-page';
import { useFormLanguage } from '@/lib/use-form-language';
import { CARRIERS, type SimFilter } from '../utils/filter';

interface FilterValues {
  state?: SimState[];
  carrier?: string;
  groupId?: number;
  expiringDays?: number | null;
  belowPercent?: number | null;
  keyword?: string;
}

interface FilterBarProps {
  filter: SimFilter;
  groups: GroupNode[] | undefined;
  exporting: boolean;
  onSearch: (filter: SimFilter) => void;
  onExport: () => void;
}

interface TreeNode {
  value: number;
  title: string;
  children: TreeNode[];
}
const toTree = (nodes: GroupNode[]): TreeNode[] =>
  nodes.map((n) => ({ value: n.id, title: n.name, children: toTree(n.children) }));

/** State, carrier, group, expiry, share left and keyword; search, reset, export. The URL holds what is applied. */
export function FilterBar({ filter, groups, exporting, onSearch, onExport }: FilterBarProps) {
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
      carrier: filter.carrier,
      groupId: filter.groupId,
      expiringDays: filter.expiringDays ?? null,
      belowPercent: filter.belowPercent ?? null,
      keyword: filter.keyword,
    });
  }, [filter, form]);

  const submit = (v: FilterValues) =>
    onSearch({
      state: v.state?.length ? v.state : undefined,
      carrier: v.carrier || undefined,
      groupId: v.groupId ?? undefined,
      expiringDays: v.expiringDays ?? undefined,
      belowPercent: v.belowPercent ?? undefined,
      keyword: v.keyword?.trim() || undefined,
    });

  return (
    <Form<FilterValues>
      form={form}
      layout="inline"
      onFinish={submit}
      style={{ rowGap: 12 }}
      aria-label={t('flowRate.filter.label')}
    >
      <Form.Item name="state" {...item}>
        <Select
          mode="multiple"
          allowClear
          maxTagCount="responsive"
          placeholder={t('flowRate.filter.state')}
          style={w(220)}
          data-testid="sim-filter-state"
          options={SIM_STATES.map((s) => ({ value: s, label: t(`flowRate.state.${s}`) }))}
        />
      </Form.Item>
      <Form.Item name="carrier" {...item}>
        <Select
          allowClear
          placeholder={t('flowRate.filter.carrier')}
          style={w(140)}
          options={CARRIERS.map((c) => ({ value: c, label: t(`flowRate.carrier.${c}`) }))}
        />
      </Form.Item>
      {groups && groups.length > 0 && (
        <Form.Item name="groupId" {...item}>
          <TreeSelect
            allowClear
            treeDefaultExpandAll
            placeholder={t('flowRate.filter.group')}
            style={w(160)}
            treeData={toTree(groups)}
          />
        </Form.Item>
      )}
      <Form.Item name="expiringDays" {...item}>
        <InputNumber min={1} max={366} precision={0} placeholder={t('flowRate.filter.expiringDays')} style={w(150)} />
      </Form.Item>
      <Form.Item name="belowPercent" {...item}>
        <InputNumber min={0} max={100} placeholder={t('flowRate.filter.belowPercent')} style={w(140)} />
      </Form.Item>
      <Form.Item name="keyword" {...item}>
        <Input allowClear maxLength={50} placeholder={t('flowRate.filter.keyword')} style={w(210)} />
      </Form.Item>
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
