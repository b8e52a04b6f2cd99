import { Select, TreeSelect } from 'antd';
import { useMemo, useRef, useState } from 'react';
import type { DeviceListItem, GroupNode } from '@cpc/contracts/device';
import { useDeviceSearch, useGroupTreeOptions } from '@/lib/device-targets';
import { useDebounced } from '@/lib/use-debounced';

interface TreeOption {
  value: number;
  title: string;
  children: TreeOption[];
}
const toTree = (nodes: GroupNode[]): TreeOption[] =>
  nodes.map((n) => ({ value: n.id, title: `${n.name} (${n.deviceCount})`, children: toTree(n.children) }));

const deviceLabel = (d: Pick<DeviceListItem, 'name' | 'sn'>) => (d.name ? `${d.name} (${d.sn})` : d.sn);

interface PickerProps {
  value?: number[];
  onChange?: (value: number[]) => void;
  placeholder?: string;
  disabled?: boolean;
  id?: string;
  'data-testid'?: string;
  /** Reads nothing while false (a closed drawer). */
  enabled?: boolean;
}

/** Picks groups of the tenant's tree (a group stands for its sub-groups too); a form control. */
export function GroupTreeSelect({ value, onChange, enabled = true, ...rest }: PickerProps) {
  const groups = useGroupTreeOptions(enabled);
  return (
    <TreeSelect<number[]>
      {...rest}
      multiple
      value={value}
      onChange={(v) => onChange?.(v ?? [])}
      treeDefaultExpandAll
      showSearch
      treeNodeFilterProp="title"
      loading={groups.isPending}
      treeData={toTree(groups.data?.tree ?? [])}
      popupMatchSelectWidth={false}
    />
  );
}

/**
 * Picks devices, searched on the server by sn or name as the user types; the devices already picked keep their
 * names when a new search no longer lists them. A form control.
 */
export function DeviceSelect({ value, onChange, enabled = true, ...rest }: PickerProps) {
  const [keyword, setKeyword] = useState('');
  const devices = useDeviceSearch(useDebounced(keyword.trim(), 300), enabled);
  const known = useRef(new Map<number, string>());
  const options = useMemo(() => {
    for (const d of devices.data?.list ?? []) known.current.set(d.id, deviceLabel(d));
    const listed = (devices.data?.list ?? []).map((d) => ({ value: d.id, label: deviceLabel(d) }));
    const picked = (value ?? [])
      .filter((id) => !listed.some((o) => o.value === id))
      .map((id) => ({ value: id, label: known.current.get(id) ?? `#${id}` }));
    return [...picked, ...listed];
  }, [devices.data, value]);
  return (
    <Select<number[]>
      {...rest}
      mode="multiple"
      value={value}
      onChange={(v) => onChange?.(v)}
      showSearch={{ filterOption: false, onSearch: setKeyword }}
      loading={devices.isFetching}
      options={options}
    />
  );
}
