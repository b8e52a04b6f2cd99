import { TreeSelect } from 'antd';
import type { DepartmentNode } from '@cpc/contracts';
import { useDepartmentTree } from '@/lib/department-api';

interface TreeOption {
  value: number;
  title: string;
  children: TreeOption[];
}

const toOptions = (nodes: DepartmentNode[]): TreeOption[] =>
  nodes.map((n) => ({ value: n.id, title: n.name, children: toOptions(n.children) }));

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
}

/**
 * Picks one department of the tenant's tree (issue 12): the user form (a user's department), the device edit
 * form and the device list's filter. Searchable by name; cleared means "none".
 */
export function DepartmentTreeSelect({ value, onChange, allowClear = true, ...rest }: DepartmentTreeSelectProps) {
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
      treeData={toOptions(tree.data ?? [])}
      popupMatchSelectWidth={false}
    />
  );
}
