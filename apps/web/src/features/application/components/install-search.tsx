import { Badge, Card, Empty, Flex, Progress, Radio, Select, Table, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DeploymentKind, InstalledDevice } from '@cpc/contracts/application';
import { useDeployablePackages, useInstalled } from '../api/install';

/** "Which devices run version X": pick an app (or model), see how many devices run each version, and which. */
export function InstallSearch({ kinds }: { kinds: DeploymentKind[] }) {
  const { t } = useTranslation();
  const [kind, setKind] = useState<DeploymentKind>(kinds[0]);
  const [identifier, setIdentifier] = useState<string | undefined>();
  const [versionName, setVersionName] = useState<string | undefined>();
  const [pageNo, setPageNo] = useState(1);
  const packages = useDeployablePackages(kind);
  const identifiers = useMemo(
    () =>
      [...new Map((packages.data ?? []).map((p) => [p.identifier, p.name])).entries()].map(([value, name]) => ({
        value,
        label: `${name} (${value})`,
      })),
    [packages.data],
  );
  const result = useInstalled(identifier ? { kind, identifier, versionName, pageNo, pageSize: 20 } : null);
  const versions = result.data?.versions ?? [];
  const most = Math.max(1, ...versions.map((v) => v.devices));

  return (
    <Flex vertical gap={16}>
      <Flex gap={12} wrap align="center">
        {kinds.length > 1 && (
          <Radio.Group
            optionType="button"
            value={kind}
            onChange={(e) => {
              setKind(e.target.value as DeploymentKind);
              setIdentifier(undefined);
              setVersionName(undefined);
            }}
            options={kinds.map((k) => ({ value: k, label: t(`application.install.kind.${k}`) }))}
          />
        )}
        <Select
          showSearch
          allowClear
          style={{ minWidth: 240, flex: '1 1 240px', maxWidth: 420 }}
          optionFilterProp="label"
          placeholder={t('application.install.search.identifierPlaceholder')}
          aria-label={t('application.install.search.identifier')}
          options={identifiers}
          value={identifier}
          onChange={(v: string | undefined) => {
            setIdentifier(v);
            setVersionName(undefined);
            setPageNo(1);
          }}
          id="installed-identifier"
        />
        <Select
          allowClear
          style={{ minWidth: 160 }}
          placeholder={t('application.install.search.allVersions')}
          aria-label={t('application.install.search.version')}
          value={versionName}
          onChange={(v: string | undefined) => {
            setVersionName(v);
            setPageNo(1);
          }}
          options={versions.map((v) => ({ value: v.versionName, label: v.versionName || '—' }))}
          disabled={!identifier}
        />
      </Flex>
      {!identifier ? (
        <Empty description={t('application.install.search.hint')} />
      ) : (
        <Flex gap={16} wrap align="flex-start">
          <Card
            size="small"
            title={t('application.install.search.distribution')}
            style={{ flex: '1 1 260px', maxWidth: 420 }}
            data-testid="installed-distribution"
          >
            {versions.length === 0 && (
              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('application.install.search.empty')} />
            )}
            {versions.map((v) => (
              <Flex
                key={v.versionName}
                vertical
                gap={0}
                style={{ cursor: 'pointer', marginBottom: 8 }}
                onClick={() => {
                  setVersionName(v.versionName);
                  setPageNo(1);
                }}
                data-testid={`installed-version-${v.versionName}`}
              >
                <Flex justify="space-between">
                  <Typography.Text strong={v.versionName === versionName}>
                    {v.versionName || '—'}
                    {kind === 'app' ? ` (${v.versionCode})` : ''}
                  </Typography.Text>
                  <Typography.Text type="secondary">
                    {t('application.install.search.devices', { n: v.devices })}
                  </Typography.Text>
                </Flex>
                <Progress percent={(v.devices / most) * 100} showInfo={false} size="small" />
              </Flex>
            ))}
          </Card>
          <Table<InstalledDevice>
            style={{ flex: '3 1 320px', minWidth: 0 }}
            rowKey="deviceId"
            size="small"
            loading={result.isFetching}
            dataSource={result.data?.list ?? []}
            scroll={{ x: 420 }}
            pagination={{
              current: pageNo,
              pageSize: 20,
              total: result.data?.total ?? 0,
              onChange: setPageNo,
              hideOnSinglePage: true,
              size: 'small',
            }}
            locale={{ emptyText: t('application.install.search.empty') }}
            columns={[
              {
                title: t('application.install.column.device'),
                key: 'device',
                render: (_, r) => (
                  <Typography.Text>
                    <Badge status={r.online ? 'success' : 'default'} /> {r.deviceName || r.deviceSn}{' '}
                    {r.deviceName && <Typography.Text type="secondary">{r.deviceSn}</Typography.Text>}
                  </Typography.Text>
                ),
              },
              {
                title: t('application.install.column.version'),
                key: 'version',
                render: (_, r) => `${r.versionName}${kind === 'app' ? ` (${r.versionCode})` : ''}`,
              },
            ]}
            data-testid="installed-devices"
          />
        </Flex>
      )}
    </Flex>
  );
}
