import { LeftOutlined, RightOutlined } from '@ant-design/icons';
import { App, Button, Card, Flex, Grid, Table, Typography } from 'antd';
import type { TableProps } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SystemLogEntry } from '@cpc/contracts';
import { formatDateTime } from '@/lib/format/relative-time';
import { useSession } from '@/lib/session';
import { FIRST_PAGE_REFRESH_MS, downloadLogCsv, useLogPage } from '../api/system-log';
import { FilterBar } from '../components/filter-bar';
import { LogDrawer } from '../components/log-drawer';
import { ActionName, ResultTag } from '../components/labels';
import { changeRows, type LogFilter } from '../utils/filter';

const PAGE_SIZE = 20;

/**
 * The system log (issue 12): sign-ins, changes and refused access, newest first. A customer sees its own
 * tenant's, staff every tenant's. Pages go by cursor (next / previous); the first page is read again every few
 * seconds, so new entries appear without a reload.
 */
export default function SystemLogPage() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const staff = useSession((s) => s.userInfo?.tenantKind === 'platform');
  const narrow = !Grid.useBreakpoint().md;
  const [filter, setFilter] = useState<LogFilter>({});
  // cursors[i] opens page i (undefined: the newest page)
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [total, setTotal] = useState<{ n: number; kind: string } | null>(null);
  const [open, setOpen] = useState<SystemLogEntry | null>(null);
  const [exporting, setExporting] = useState(false);
  const cursor = cursors[cursors.length - 1];
  const page = useLogPage(filter, cursor, PAGE_SIZE);
  const data = page.data;
  if (data && data.total !== null && (total?.n !== data.total || total.kind !== data.totalKind))
    setTotal({ n: data.total, kind: data.totalKind ?? 'exact' });

  const search = (f: LogFilter) => {
    setFilter(f);
    setCursors([undefined]);
    setTotal(null);
  };

  const exportCsv = async () => {
    setExporting(true);
    try {
      await downloadLogCsv(filter);
    } catch {
      message.error(t('systemLog.exportFailed'));
    } finally {
      setExporting(false);
    }
  };

  const totalText = !total
    ? ''
    : total.kind === 'exact'
      ? t('systemLog.total', { total: total.n.toLocaleString() })
      : total.kind === 'atLeast'
        ? t('systemLog.totalAtLeast', { total: total.n.toLocaleString() })
        : t('systemLog.totalAbout', { total: total.n.toLocaleString() });

  const columns: TableProps<SystemLogEntry>['columns'] = [
    {
      key: 'at',
      dataIndex: 'at',
      title: t('systemLog.column.at'),
      width: 170,
      render: (v: string) => formatDateTime(v),
    },
    { key: 'user', dataIndex: 'userName', title: t('systemLog.column.user'), width: 140, ellipsis: true },
    ...(staff
      ? [{ key: 'tenant', dataIndex: 'tenantName', title: t('systemLog.column.tenant'), width: 140, ellipsis: true }]
      : []),
    { key: 'ip', dataIndex: 'ip', title: t('systemLog.column.ip'), width: 130 },
    {
      key: 'action',
      dataIndex: 'action',
      title: t('systemLog.column.action'),
      width: 160,
      render: (v: string) => <ActionName action={v} />,
    },
    {
      key: 'object',
      title: t('systemLog.column.object'),
      width: 160,
      ellipsis: true,
      render: (_: unknown, e) => (e.resource ? `${e.resource}${e.resourceId ? ` #${e.resourceId}` : ''}` : '–'),
    },
    {
      key: 'result',
      dataIndex: 'result',
      title: t('systemLog.column.result'),
      width: 100,
      render: (v: string) => <ResultTag result={v} />,
    },
    {
      key: 'changes',
      title: t('systemLog.column.changes'),
      ellipsis: true,
      render: (_: unknown, e) => {
        const rows = changeRows(e);
        if (!rows.length) return '–';
        const first = rows[0];
        return (
          <span>
            {first.field}: {first.before} → {first.after}
            {rows.length > 1 ? ` (+${rows.length - 1})` : ''}
          </span>
        );
      },
    },
    {
      key: 'view',
      width: 80,
      fixed: narrow ? undefined : 'right',
      render: (_: unknown, e) => (
        <Button type="link" size="small" onClick={() => setOpen(e)}>
          {t('systemLog.view')}
        </Button>
      ),
    },
  ];

  return (
    <Card variant="borderless">
      <Flex vertical gap={16}>
        <div>
          <Typography.Title level={4} style={{ margin: 0 }}>
            {t('systemLog.title')}
          </Typography.Title>
          <Typography.Text type="secondary">
            {staff ? t('systemLog.subtitleStaff') : t('systemLog.subtitle')}
          </Typography.Text>
        </div>
        <FilterBar staff={staff} exporting={exporting} onSearch={search} onExport={() => void exportCsv()} />
        <Table<SystemLogEntry>
          rowKey="id"
          size="middle"
          columns={columns}
          dataSource={data?.list ?? []}
          loading={page.isFetching && !data}
          pagination={false}
          scroll={{ x: 1100 }}
          onRow={(e) => ({ onDoubleClick: () => setOpen(e) })}
          locale={{ emptyText: t('systemLog.empty') }}
        />
        <Flex justify="space-between" align="center" wrap gap={8}>
          <Typography.Text type="secondary" data-testid="log-total">
            {totalText}
            {!cursor && ` · ${t('systemLog.autoRefresh', { n: FIRST_PAGE_REFRESH_MS / 1000 })}`}
          </Typography.Text>
          <Flex gap={8} align="center">
            <Typography.Text type="secondary">{t('systemLog.page', { n: cursors.length })}</Typography.Text>
            <Button
              icon={<LeftOutlined />}
              disabled={cursors.length <= 1}
              onClick={() => setCursors((c) => c.slice(0, -1))}
            >
              {t('systemLog.newer')}
            </Button>
            <Button
              icon={<RightOutlined />}
              iconPosition="end"
              disabled={!data?.next || page.isPlaceholderData}
              onClick={() => data?.next && setCursors((c) => [...c, data.next!])}
            >
              {t('systemLog.older')}
            </Button>
          </Flex>
        </Flex>
      </Flex>
      <LogDrawer entry={open} onClose={() => setOpen(null)} />
    </Card>
  );
}
