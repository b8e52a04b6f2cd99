import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Alert, App, Button, Flex, Form, InputNumber, Select, Table, Typography } from 'antd';
import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useFormLanguage } from '@/lib/use-form-language';
import { useDeployablePackages, useRequiredApps, useSaveRequiredApps } from '../api/install';

interface Row {
  identifier?: string;
  minVersionCode?: number | null;
}

/** The required-apps policy: apps (and a minimum version code, or the latest) every device must have. */
export function InstallPolicy({ canEdit }: { canEdit: boolean }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<{ apps: Row[] }>();
  useFormLanguage(form);
  const required = useRequiredApps();
  const packages = useDeployablePackages('app');
  const save = useSaveRequiredApps();
  const options = useMemo(
    () =>
      [...new Map((packages.data ?? []).map((p) => [p.identifier, p.name])).entries()].map(([value, name]) => ({
        value,
        label: `${name} (${value})`,
      })),
    [packages.data],
  );
  useEffect(() => {
    if (required.data)
      form.setFieldsValue({
        apps: required.data.apps.map((a) => ({ identifier: a.identifier, minVersionCode: a.minVersionCode })),
      });
  }, [required.data, form]);

  const submit = async (v: { apps: Row[] }) => {
    const res = await save.mutateAsync({
      apps: (v.apps ?? [])
        .filter((a) => a.identifier)
        .map((a) => ({ identifier: a.identifier!, minVersionCode: a.minVersionCode ?? null })),
    });
    message.success(t('application.install.policy.saved', { n: res.tasks }));
  };

  return (
    <Flex vertical gap={16} data-testid="install-policy">
      <Alert type="info" showIcon message={t('application.install.policy.help')} />
      <Table
        size="small"
        rowKey="identifier"
        loading={required.isPending}
        dataSource={required.data?.apps ?? []}
        pagination={false}
        scroll={{ x: 480 }}
        columns={[
          {
            title: t('application.install.policy.app'),
            key: 'app',
            render: (_, r) => (
              <Flex vertical>
                <Typography.Text>{r.name}</Typography.Text>
                <Typography.Text type="secondary">{r.identifier}</Typography.Text>
              </Flex>
            ),
          },
          {
            title: t('application.install.policy.minVersion'),
            key: 'min',
            render: (_, r) =>
              r.minVersionCode == null
                ? `${t('application.install.policy.latest')} (${r.latestVersionName ?? '—'})`
                : r.minVersionCode,
          },
          { title: t('application.install.policy.missing'), dataIndex: 'missing' },
        ]}
      />
      {canEdit && (
        <Form form={form} onFinish={(v) => void submit(v).catch(() => {})} layout="vertical">
          <Form.List name="apps">
            {(fields, { add, remove }) => (
              <Flex vertical gap={8}>
                {fields.map((f) => (
                  <Flex key={f.key} gap={8} wrap align="flex-start">
                    <Form.Item
                      name={[f.name, 'identifier']}
                      rules={[{ required: true }]}
                      style={{ flex: '2 1 220px', marginBottom: 0 }}
                    >
                      <Select
                        showSearch
                        optionFilterProp="label"
                        options={options}
                        placeholder={t('application.install.policy.app')}
                        aria-label={t('application.install.policy.app')}
                      />
                    </Form.Item>
                    <Form.Item name={[f.name, 'minVersionCode']} style={{ flex: '1 1 140px', marginBottom: 0 }}>
                      <InputNumber
                        min={0}
                        style={{ width: '100%' }}
                        placeholder={t('application.install.policy.latest')}
                        aria-label={t('application.install.policy.minVersion')}
                      />
                    </Form.Item>
                    <Button
                      icon={<DeleteOutlined />}
                      aria-label={t('application.install.policy.remove')}
                      onClick={() => remove(f.name)}
                    />
                  </Flex>
                ))}
                <Flex gap={8} wrap>
                  <Button icon={<PlusOutlined />} onClick={() => add({ minVersionCode: null })}>
                    {t('application.install.policy.add')}
                  </Button>
                  <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="policy-save">
                    {t('application.install.policy.save')}
                  </Button>
                </Flex>
              </Flex>
            )}
          </Form.List>
        </Form>
      )}
    </Flex>
  );
}
