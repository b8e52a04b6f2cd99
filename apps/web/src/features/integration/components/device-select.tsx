import { Select } from 'antd';
import { useDeferredValue, useState, type CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';
import { useDeviceOptions } from '../api/integration';

interface DeviceSelectProps {
  value?: number;
  onChange?: (id: number | undefined) => void;
  placeholder?: string;
  allowClear?: boolean;
  style?: CSSProperties;
  id?: string;
}

/** One of the account's devices, searched by serial number or name, with its online state. */
export function DeviceSelect({ value, onChange, placeholder, allowClear, style, id }: DeviceSelectProps) {
  const { t } = useTranslation();
  const [keyword, setKeyword] = useState('');
  const devices = useDeviceOptions(useDeferredValue(keyword.trim()));
  const options = (devices.data?.list ?? []).map((d) => ({
    value: d.id,
    label: `${d.name || d.sn}${d.name ? ` · ${d.sn}` : ''} (${t(`integration.deviceStatus.${d.status === 'online' ? 'online' : 'offline'}`)})`,
  }));
  return (
    <Select<number>
      id={id}
      showSearch={{ filterOption: false, onSearch: setKeyword }}
      value={value}
      onChange={(v) => onChange?.(v)}
      allowClear={allowClear}
      placeholder={placeholder ?? t('integration.filter.device')}
      loading={devices.isFetching}
      options={options}
      notFoundContent={t('integration.noDevices')}
      style={style}
      popupMatchSelectWidth={false}
    />
  );
}
