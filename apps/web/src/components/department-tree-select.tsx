import { TreeSelect } from 'antd';
import type { DepartmentNode } from '@cpc/contracts';
import { useDepartmentTree } from '@/lib/department-api';

interface TreeOption {
  value: number;
  title: string;
  disabled: boolean;
  children: TreeOption[];
}

const toOptions = (nodes: DepartmentNode[], selectable?: (id: number) => boolean): TreeOption[] =>
  nodes.map((n) => ({
    value: n.id,
    title: n.name,
    disabled: selectable ? !selectable(n.id) : false,
    children: toOptions(n.children, selectable),
  }));

export interface DepartmentTreeSelectProps {
  value?: number | null;
  onChange?: (value: number | null) => void;
  placeholder?: string;
  /** Shown in the search box's place when nothing matches. */
  notFoundContent?: string;
  allowClear?: boolean;
  disabled?: boolean;
  id?: string;
  style?: React.CSSProperties;
  'aria-label'?: string;
  /** Which departments may be chosen (the others are shown, disabled); all when absent. */
  selectable?: (id: number) => boolean;
}

/**
 * Picks one department of the tenant's tree (issue 12): the user form (a user's department), the device edit
 * form and the device list's filter. Searchable by name; cleared means "none".
 */
export function DepartmentTreeSelect({
  value,
  onChange,
  allowClear = true,
  selectable,
  ...rest
}: DepartmentTreeSelectProps) {
  const tree = useDepartmentTree();
  return (
    <TreeSelect<number | null>
      {...rest}
      value={value ?? undefined}
      onChange={(v) => onChange?.(v ?? null)}
      allowClear={allowClear}
      showSearch
      treeNodeFilterProp="title"
      treeDefaultExpandAll
      loading={tree.isPending}
      treeData={toOptions(tree.data ?? [], selectable)}
      popupMatchSelectWidth={false}
    />
  );
}
