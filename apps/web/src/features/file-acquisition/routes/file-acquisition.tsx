import { DeleteOutlined, DownloadOutlined, PlusOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Flex, Grid, Input, Popconfirm, Select, Table, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  FILE_KEEP_DAYS,
  FILE_PRESET_NAMES,
  FILE_REQUEST_STATES,
  type FileRequestItem,
  type FileRequestListQuery,
} from '@cpc/contracts/file-acquisition';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { formatDateTime } from '@/lib/format/relative-time';
import { formatSize } from '@/lib/format/size';
import { useLiveEvents } from '@/lib/live-events';
import { usePermission } from '@/lib/session';
import { deleteRequests, downloadLink, fileKeys, useFileRequests } from '../api/file-acquisition';
import { RequestDialog } from '../components/request-dialog';
import { StateTag } from '../components/state-tag';

/** Live changes are gathered this long before the list is read again. */
const LIVE_DEBOUNCE_MS = 400;

/**
 * File acquisition (issue 15, `/application/fileAcquisition`): ask devices for their logs or files, follow each
 * request live (waiting for the device, delivered, uploading %, ready, failed with its reason, expired), download
 * what arrived, delete.
 */
export default function FileAcquisitionPage() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const client = useQueryClient();
  const narrow = !Grid.useBreakpoint().md;
  const canEdit = usePermission(PERMISSIONS.fileAcquisitionEdit);
  const [query, setQuery] = useState<FileRequestListQuery>({ pageNo: 1, pageSize: 20 });
  const list = useFileRequests(query);
  const [asking, setAsking] = useState(false);
  const [selected, setSelected] = useState<number[]>([]);

  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const refresh = () => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      void client.invalidateQueries({ queryKey: fileKeys.all });
    }, LIVE_DEBOUNCE_MS);
  };
  useLiveEvents({
    fileAcquisition: refresh,
    task: (e) => {
      if (e.type === 'fetch_file') refresh();
    },
  });

  const download = async (item: FileRequestItem) => {
    // a refusal (the file deleted meanwhile) is said by the request layer
    const link = await downloadLink(item.id).catch(() => null);
    if (!link) return;
    const { url, fileName } = link;
    const a = document.createElement('a');
    a.href = url;
    a.download = fileName;
    document.body.appendChild(a);
    a.click();
    a.remove();
  };

  const remove = async (ids: number[]) => {
    if (!(await deleteRequests(ids).catch(() => null))) return;
    message.success(t('fileAcquisition.deleted', { n: ids.length }));
    setSelected([]);
    void client.invalidateQueries({ queryKey: fileKeys.all });
  };

  const columns: TableProps<FileRequestItem>['columns'] = [
    {
      key: 'device',
      title: t('fileAcquisition.column.device'),
      width: 150,
      ellipsis: true,
      render: (_: unknown, r) => (
        <Flex vertical>
          <span>{r.deviceName || r.deviceSn}</span>
          {r.deviceName ? <Typography.Text type="secondary">{r.deviceSn}</Typography.Text> : null}
        </Flex>
      ),
    },
    {
      key: 'what',
      title: t('fileAcquisition.column.what'),
      width: 200,
      render: (_: unknown, r) => (
        <Flex vertical>
          <span>{r.preset ? t(`fileAcquisition.preset.${r.preset}`) : t('fileAcquisition.form.path')}</span>
          <Typography.Text type="secondary" code style={{ wordBreak: 'break-all' }}>
            {r.pattern}
          </Typography.Text>
        </Flex>
      ),
    },
    {
      key: 'state',
      title: t('fileAcquisition.column.state'),
      width: 130,
      render: (_: unknown, r) => <StateTag item={r} />,
    },
    {
      key: 'file',
      title: t('fileAcquisition.column.file'),
      width: 170,
      render: (_: unknown, r) =>
        r.state === 'ready' ? (
          <Flex vertical>
            <span style={{ wordBreak: 'break-all' }}>{r.fileName}</span>
            <Typography.Text type="secondary">{formatSize(r.size)}</Typography.Text>
          </Flex>
        ) : r.state === 'failed' ? (
          <Typography.Text type="danger">{r.error}</Typography.Text>
        ) : (
          <Typography.Text type="secondary">
            {t('fileAcquisition.upTo', { size: formatSize(r.maxBytes) })}
          </Typography.Text>
        ),
    },
    {
      key: 'time',
      title: t('fileAcquisition.column.time'),
      width: 170,
      render: (_: unknown, r) => (
        <Flex vertical>
          <span>{formatDateTime(r.completedAt ?? r.createdAt)}</span>
          <Typography.Text type="secondary">
            {r.completedAt
              ? t('fileAcquisition.askedAt', { at: formatDateTime(r.createdAt) })
              : t('fileAcquisition.waitsUntil', { at: formatDateTime(r.expireAt) })}
          </Typography.Text>
        </Flex>
      ),
    },
    {
      key: 'action',
      title: t('fileAcquisition.column.action'),
      // "Download" and "Delete" side by side in en
      width: 200,
      fixed: narrow ? undefined : 'right',
      render: (_: unknown, r) => (
        <Flex gap={4}>
          <Button
            type="link"
            size="small"
            icon={<DownloadOutlined />}
            disabled={r.state !== 'ready'}
            onClick={() => void download(r)}
            data-testid={`file-download-${r.id}`}
          >
            {t('fileAcquisition.download')}
          </Button>
          {canEdit && (
            <Popconfirm title={t('fileAcquisition.deleteConfirm')} onConfirm={() => remove([r.id])}>
              <Button type="link" size="small" danger icon={<DeleteOutlined />} data-testid={`file-delete-${r.id}`}>
                {t('fileAcquisition.delete')}
              </Button>
            </Popconfirm>
          )}
        </Flex>
      ),
    },
  ];

  return (
    <Card variant="borderless">
      <Flex vertical gap={16}>
        <div>
          <Typography.Title level={4} style={{ margin: 0 }}>
            {t('fileAcquisition.title')}
          </Typography.Title>
          <Typography.Text type="secondary">{t('fileAcquisition.subtitle', { days: FILE_KEEP_DAYS })}</Typography.Text>
        </div>
        <Flex gap={8} wrap align="center">
          <Input.Search
            allowClear
            placeholder={t('fileAcquisition.filter.keyword')}
            style={{ width: narrow ? '100%' : 240 }}
            onSearch={(keyword) => setQuery((q) => ({ ...q, pageNo: 1, keyword: keyword || undefined }))}
            data-testid="file-filter-keyword"
          />
          <Select
            allowClear
            placeholder={t('fileAcquisition.filter.state')}
            style={{ width: 150 }}
            options={FILE_REQUEST_STATES.map((s) => ({ value: s, label: t(`fileAcquisition.state.${s}`) }))}
            onChange={(state) => setQuery((q) => ({ ...q, pageNo: 1, state }))}
            data-testid="file-filter-state"
          />
          <Select
            allowClear
            placeholder={t('fileAcquisition.filter.preset')}
            style={{ width: 150 }}
            options={[...FILE_PRESET_NAMES, 'path' as const].map((p) => ({
              value: p,
              label: p === 'path' ? t('fileAcquisition.form.path') : t(`fileAcquisition.preset.${p}`),
            }))}
            onChange={(preset) => setQuery((q) => ({ ...q, pageNo: 1, preset }))}
          />
          {canEdit && (
            <>
              <Button type="primary" icon={<PlusOutlined />} onClick={() => setAsking(true)} data-testid="file-ask">
                {t('fileAcquisition.ask')}
              </Button>
              <Tooltip title={selected.length ? undefined : t('fileAcquisition.selectHint')}>
                <Popconfirm
                  title={t('fileAcquisition.deleteConfirm')}
                  disabled={!selected.length}
                  onConfirm={() => remove(selected)}
                >
                  <Button danger disabled={!selected.length} icon={<DeleteOutlined />}>
                    {t('fileAcquisition.deleteSelected', { n: selected.length })}
                  </Button>
                </Popconfirm>
              </Tooltip>
            </>
          )}
        </Flex>
        <Table<FileRequestItem>
          rowKey="id"
          size="middle"
          columns={columns}
          dataSource={list.data?.list ?? []}
          loading={list.isFetching && !list.data}
          rowSelection={
            canEdit ? { selectedRowKeys: selected, onChange: (keys) => setSelected(keys as number[]) } : undefined
          }
          pagination={{
            current: query.pageNo,
            pageSize: query.pageSize,
            total: list.data?.total ?? 0,
            showSizeChanger: true,
            size: narrow ? 'small' : undefined,
            showTotal: (total) => t('fileAcquisition.total', { total }),
          }}
          onChange={(p) => setQuery((q) => ({ ...q, pageNo: p.current ?? 1, pageSize: p.pageSize ?? 20 }))}
          scroll={{ x: 1020 }}
          locale={{ emptyText: t('fileAcquisition.empty') }}
          data-testid="file-table"
        />
      </Flex>
      <RequestDialog
        open={asking}
        onClose={() => setAsking(false)}
        onDone={() => {
          setAsking(false);
          void client.invalidateQueries({ queryKey: fileKeys.all });
        }}
      />
    </Card>
  );
}
