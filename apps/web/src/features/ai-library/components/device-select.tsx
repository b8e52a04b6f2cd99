import { Select } from 'antd';
import { useDeferredValue, useState, type CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';
import { useDeviceOptions } from '../api/ocr';

interface DeviceSelectProps {
  value?: number;
  onChange?: (id: number | undefined) => void;
  style?: CSSProperties;
  id?: string;
}

/** One of the account's devices, searched by serial number or name, with its online state. */
export function DeviceSelect({ value, onChange, style, id }: DeviceSelectProps) {
  const { t } = useTranslation();
  const [keyword, setKeyword] = useState('');
  const devices = useDeviceOptions(useDeferredValue(keyword.trim()));
  const options = (devices.data?.list ?? []).map((d) => ({
    value: d.id,
    label: `${d.name || d.sn}${d.name ? ` · ${d.sn}` : ''} (${t(d.status === 'online' ? 'aiLibrary.online' : 'aiLibrary.offline')})`,
  }));
  return (
    <Select<number>
      id={id}
      showSearch={{ filterOption: false, onSearch: setKeyword }}
      value={value}
      onChange={(v) => onChange?.(v)}
      placeholder={t('aiLibrary.cloud.choosePrinter')}
      loading={devices.isFetching}
      options={options}
      notFoundContent={t('aiLibrary.noDevices')}
      style={style}
      popupMatchSelectWidth={false}
    />
  );
}
