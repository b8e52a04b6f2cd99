import { Descriptions, Drawer, Empty, Grid, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { SystemLogEntry } from '@cpc/contracts';
import { formatDateTime } from '@/lib/format/relative-time';
import { changeRows } from '../utils/filter';
import { ActionName, ResultTag } from './labels';

/** One entry in full: who, when, from where, what, and the changed fields before → after. */
export function LogDrawer({ entry, onClose }: { entry: SystemLogEntry | null; onClose: () => void }) {
  const { t } = useTranslation();
  const narrow = !Grid.useBreakpoint().md;
  const rows = entry ? changeRows(entry) : [];
  const details = entry ? Object.entries(entry.details) : [];
  return (
    <Drawer
      open={!!entry}
      onClose={onClose}
      title={t('systemLog.detail.title')}
      size={narrow ? '100%' : 640}
      destroyOnHidden
    >
      {entry && (
        <>
          <Descriptions column={1} size="small" bordered>
            <Descriptions.Item label={t('systemLog.column.at')}>{formatDateTime(entry.at)}</Descriptions.Item>
            <Descriptions.Item label={t('systemLog.column.user')}>{entry.userName || '–'}</Descriptions.Item>
            <Descriptions.Item label={t('systemLog.column.tenant')}>{entry.tenantName || '–'}</Descriptions.Item>
            <Descriptions.Item label={t('systemLog.column.ip')}>{entry.ip || '–'}</Descriptions.Item>
            <Descriptions.Item label={t('systemLog.column.device')}>{entry.device || '–'}</Descriptions.Item>
            <Descriptions.Item label={t('systemLog.column.action')}>
              <ActionName action={entry.action} />
            </Descriptions.Item>
            <Descriptions.Item label={t('systemLog.column.object')}>
              {entry.resource ? `${entry.resource}${entry.resourceId ? ` #${entry.resourceId}` : ''}` : '–'}
            </Descriptions.Item>
            <Descriptions.Item label={t('systemLog.column.result')}>
              <ResultTag result={entry.result} />
            </Descriptions.Item>
          </Descriptions>
          <Typography.Title level={5} style={{ marginTop: 24 }}>
            {t('systemLog.detail.changes')}
          </Typography.Title>
          {rows.length ? (
            <Table
              size="small"
              rowKey="field"
              pagination={false}
              dataSource={rows}
              data-testid="log-changes"
              scroll={{ x: 'max-content' }}
              columns={[
                { key: 'field', dataIndex: 'field', title: t('systemLog.detail.field') },
                {
                  key: 'before',
                  dataIndex: 'before',
                  title: t('systemLog.detail.before'),
                  render: (v: string) => <Typography.Text type="secondary">{v}</Typography.Text>,
                },
                { key: 'after', dataIndex: 'after', title: t('systemLog.detail.after') },
              ]}
            />
          ) : (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('systemLog.detail.noChanges')} />
          )}
          {details.length > 0 && (
            <>
              <Typography.Title level={5} style={{ marginTop: 24 }}>
                {t('systemLog.detail.details')}
              </Typography.Title>
              <Descriptions column={1} size="small" bordered>
                {details.map(([k, v]) => (
                  <Descriptions.Item key={k} label={k}>
                    {typeof v === 'string' ? v : JSON.stringify(v)}
                  </Descriptions.Item>
                ))}
              </Descriptions>
            </>
          )}
        </>
      )}
    </Drawer>
  );
}
