import { Button, Progress, Select, Space, Table, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { RELEASE_STATES, type ReleaseItem, type ReleaseState } from '@cpc/contracts/upgrade';
import { ListPage } from '@/components/list-page';
import { formatDateTime } from '@/lib/format/relative-time';
import { useReleases } from '../api/upgrade';
import { useUpgradeLive } from '../components/live';
import { ReleaseStateTag } from '../components/tags';
import { percentDone } from '../utils/release';

/** Upgrade tasks: every release with its state, wave and progress, live. */
export default function UpgradeTask() {
  const { t } = useTranslation();
  useUpgradeLive();
  const [page, setPage] = useState({ pageNo: 1, pageSize: 20 });
  const [state, setState] = useState<ReleaseState | undefined>();
  const list = useReleases({ ...page, state });

  return (
    <ListPage
      title={t('upgrade.releases.title')}
      subtitle={t('upgrade.releases.subtitle')}
      toolbar={
        <Select<ReleaseState | ''>
          style={{ width: 200 }}
          value={state ?? ''}
          onChange={(v) => {
            setState(v || undefined);
            setPage((p) => ({ ...p, pageNo: 1 }));
          }}
          options={[
            { value: '', label: t('upgrade.releases.allStates') },
            ...RELEASE_STATES.map((s) => ({ value: s, label: t(`upgrade.state.${s}`) })),
          ]}
        />
      }
    >
      <Table<ReleaseItem>
        rowKey="id"
        size="middle"
        data-testid="release-table"
        scroll={{ x: 'max-content' }}
        loading={list.isLoading}
        dataSource={list.data?.list ?? []}
        locale={{ emptyText: t('upgrade.releases.empty') }}
        pagination={{
          current: page.pageNo,
          pageSize: page.pageSize,
          total: list.data?.total ?? 0,
          onChange: (pageNo, pageSize) => setPage({ pageNo, pageSize }),
        }}
        columns={[
          {
            key: 'name',
            title: t('upgrade.releases.name'),
            render: (_, r) => <Link to={`/upgrade/taskDetail?id=${r.id}`}>{r.name}</Link>,
          },
          {
            key: 'firmware',
            title: t('upgrade.releases.firmware'),
            render: (_, r) => `${r.packageName} ${r.version}`,
          },
          { key: 'state', title: t('upgrade.releases.state'), render: (_, r) => <ReleaseStateTag state={r.state} /> },
          {
            key: 'wave',
            title: t('upgrade.releases.wave'),
            render: (_, r) => t('upgrade.releases.waveN', { n: r.wave }),
          },
          {
            key: 'progress',
            title: t('upgrade.releases.progress'),
            render: (_, r) => (
              <Progress
                style={{ minWidth: 140 }}
                percent={percentDone(r)}
                size="small"
                status={r.state === 'halted' ? 'exception' : r.state === 'completed' ? 'success' : 'active'}
              />
            ),
          },
          {
            key: 'counts',
            title: t('upgrade.releases.counts'),
            render: (_, r) => (
              <Space size={4}>
                <Typography.Text type="success">{r.counts.verified}</Typography.Text>/
                <Typography.Text type="danger">{r.counts.failed}</Typography.Text>/<span>{r.total}</span>
              </Space>
            ),
          },
          { key: 'createdAt', title: t('upgrade.releases.createdAt'), render: (_, r) => formatDateTime(r.createdAt) },
          {
            key: 'op',
            title: '',
            render: (_, r) => (
              <Link to={`/upgrade/taskDetail?id=${r.id}`}>
                <Button type="link">{t('upgrade.releases.open')}</Button>
              </Link>
            ),
          },
        ]}
      />
    </ListPage>
  );
}
