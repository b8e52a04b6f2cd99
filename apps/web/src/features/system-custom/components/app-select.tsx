import { Select, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { packageName } from '@cpc/contracts/system-custom';
import { useCustomApps } from '../api/system-custom';

const isPackageName = (s: string) => packageName.safeParse(s).success;

/** "Name (com.example.app)" for an app of the customer, the bare package name for any other. */
export function useAppLabel() {
  const apps = useCustomApps();
  return useMemo(() => {
    const names = new Map((apps.data ?? []).map((a) => [a.pkg, a.name]));
    return (pkg: string) => (names.get(pkg) ? `${names.get(pkg)} (${pkg})` : pkg);
  }, [apps.data]);
}

/**
 * Picks one (or, `multiple`, several) of the customer's applications by package name; a typed package name is taken
 * too (the server refuses one the customer does not own, naming it).
 */
export function AppSelect({
  value,
  onChange,
  multiple,
  disabled,
  id,
  testId,
}: {
  value?: string | string[];
  onChange?: (v: string | string[] | undefined) => void;
  multiple?: boolean;
  disabled?: boolean;
  id?: string;
  testId?: string;
}) {
  const { t } = useTranslation();
  const apps = useCustomApps();
  const [search, setSearch] = useState('');
  const options = useMemo(() => {
    const list = (apps.data ?? []).map((a) => ({
      value: a.pkg,
      label: `${a.name} (${a.pkg})`,
      title: `${a.name} ${a.pkg}`,
    }));
    const picked = Array.isArray(value) ? value : value ? [value] : [];
    // a package name kept in the profile that is no longer in the catalogue still shows
    for (const p of picked) if (!list.some((o) => o.value === p)) list.push({ value: p, label: p, title: p });
    const typed = search.trim();
    if (!multiple && typed && isPackageName(typed) && !list.some((o) => o.value === typed))
      list.push({ value: typed, label: t('systemCustom.apps.useTyped', { pkg: typed }), title: typed });
    return list;
  }, [apps.data, value, search, multiple, t]);

  return (
    <Select<string | string[]>
      id={id}
      data-testid={testId}
      mode={multiple ? 'tags' : undefined}
      showSearch={{ onSearch: setSearch, optionFilterProp: 'title' }}
      allowClear
      disabled={disabled}
      loading={apps.isLoading}
      value={value}
      onChange={(v) => {
        setSearch('');
        onChange?.(Array.isArray(v) ? v.map((x) => x.trim()).filter(Boolean) : v);
      }}
      tokenSeparators={multiple ? [',', ' ', '\n'] : undefined}
      options={options}
      placeholder={multiple ? t('systemCustom.apps.pickMany') : t('systemCustom.apps.pickOne')}
      notFoundContent={
        <Typography.Text type="secondary">
          {apps.data?.length ? t('systemCustom.apps.typeHint') : t('systemCustom.apps.none')}
        </Typography.Text>
      }
      style={{ width: '100%' }}
    />
  );
}
