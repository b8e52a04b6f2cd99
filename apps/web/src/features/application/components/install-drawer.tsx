import { App, Button, Drawer, Form, Grid, Radio, Select, Switch } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DeploymentAction, DeploymentKind } from '@cpc/contracts/application';
import { DeviceSelect, GroupTreeSelect } from '@/components/device-targets';
import { useDebounced } from '@/lib/use-debounced';
import { usePackageList } from '@/lib/packages';
import { useFormLanguage } from '@/lib/use-form-language';
import { useCreateDeployment } from '../api/install';

interface Values {
  kind: DeploymentKind;
  action: DeploymentAction;
  packageId?: number;
  identifier?: string;
  groupIds?: number[];
  deviceIds?: number[];
  allowDowngrade?: boolean;
}

/** The "new install / uninstall" drawer: an app or model version (or, to remove, its name), groups and devices. */
export function InstallDrawer({
  open,
  onClose,
  onCreated,
  kinds,
}: {
  open: boolean;
  onClose: () => void;
  onCreated: (id: number) => void;
  /** The kinds the user may deploy (application:edit → app, aiLibrary:edit → model). */
  kinds: DeploymentKind[];
}) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const narrow = !Grid.useBreakpoint().sm;
  const kind = Form.useWatch('kind', form) ?? kinds[0];
  const action = Form.useWatch('action', form) ?? 'install';
  // the package catalogue's versions (newest first), searched on the server as the user types
  const [packageKeyword, setPackageKeyword] = useState('');
  const keywordNow = useDebounced(packageKeyword, 300);
  const list = usePackageList({ kind, pageSize: 100, ...(keywordNow ? { keyword: keywordNow } : {}) }, open);
  const packages = { data: list.data?.list, isPending: list.isPending };
  const create = useCreateDeployment();

  const versionOptions = useMemo(
    () =>
      (packages.data ?? []).map((p) => ({
        value: p.id,
        label: `${p.name} · ${p.identifier} · ${p.versionName}${kind === 'app' ? ` (${p.versionCode})` : ''}`,
      })),
    [packages.data, kind],
  );
  const identifierOptions = useMemo(
    () => [...new Set((packages.data ?? []).map((p) => p.identifier))].map((i) => ({ value: i, label: i })),
    [packages.data],
  );

  const submit = async (v: Values) => {
    if (!v.groupIds?.length && !v.deviceIds?.length) {
      form.setFields([{ name: 'deviceIds', errors: [t('application.install.drawer.targetsRequired')] }]);
      return;
    }
    const res = await create.mutateAsync({
      kind: v.kind,
      action: v.action,
      ...(v.action === 'install' ? { packageId: v.packageId } : { identifier: v.identifier }),
      groupIds: v.groupIds ?? [],
      deviceIds: v.deviceIds ?? [],
      allowDowngrade: !!v.allowDowngrade,
    });
    message.success(t('application.install.drawer.created', { devices: res.devices }));
    if (res.downgrades) message.warning(t('application.install.drawer.downgrades', { n: res.downgrades }));
    if (res.skipped) message.info(t('application.install.drawer.skipped', { n: res.skipped }));
    form.resetFields();
    onCreated(res.id);
  };

  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={t('application.install.drawer.title')}
      size={narrow ? '100%' : 520}
      destroyOnHidden
      footer={
        <Button
          type="primary"
          block
          loading={create.isPending}
          onClick={() => form.submit()}
          data-testid="install-submit"
        >
          {t('application.install.drawer.submit')}
        </Button>
      }
    >
      <Form
        form={form}
        layout="vertical"
        initialValues={{ kind: kinds[0], action: 'install', allowDowngrade: false }}
        onFinish={(v) => void submit(v).catch(() => {})}
        data-testid="install-form"
      >
        <Form.Item name="kind" label={t('application.install.drawer.kind')}>
          <Radio.Group
            optionType="button"
            options={kinds.map((k) => ({ value: k, label: t(`application.install.kind.${k}`) }))}
            onChange={() => form.setFieldsValue({ packageId: undefined, identifier: undefined })}
          />
        </Form.Item>
        <Form.Item name="action" label={t('application.install.drawer.action')}>
          <Radio.Group
            optionType="button"
            options={(['install', 'uninstall'] as const).map((a) => ({
              value: a,
              label: t(`application.install.action.${a}`),
            }))}
          />
        </Form.Item>
        {action === 'install' ? (
          <Form.Item
            name="packageId"
            label={t('application.install.drawer.package')}
            rules={[{ required: true }]}
            extra={
              !keywordNow && !packages.isPending && !versionOptions.length
                ? t('application.install.drawer.noPackages')
                : undefined
            }
          >
            <Select
              showSearch
              filterOption={false}
              onSearch={setPackageKeyword}
              loading={list.isFetching}
              options={versionOptions}
              placeholder={t('application.install.drawer.packagePlaceholder')}
              data-testid="install-package"
            />
          </Form.Item>
        ) : (
          <Form.Item name="identifier" label={t('application.install.drawer.identifier')} rules={[{ required: true }]}>
            <Select
              showSearch
              options={identifierOptions}
              placeholder={t('application.install.drawer.identifierPlaceholder')}
            />
          </Form.Item>
        )}
        <Form.Item name="groupIds" label={t('application.install.drawer.groups')}>
          <GroupTreeSelect enabled={open} data-testid="install-groups" />
        </Form.Item>
        <Form.Item name="deviceIds" label={t('application.install.drawer.devices')}>
          <DeviceSelect enabled={open} placeholder={t('application.install.drawer.devicesPlaceholder')} />
        </Form.Item>
        {action === 'install' && kind === 'app' && (
          <Form.Item
            name="allowDowngrade"
            label={t('application.install.drawer.allowDowngrade')}
            valuePropName="checked"
            extra={t('application.install.drawer.allowDowngradeHelp')}
          >
            <Switch />
          </Form.Item>
        )}
      </Form>
    </Drawer>
  );
}
