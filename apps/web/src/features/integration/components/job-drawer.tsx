import { Alert, Button, Collapse, Descriptions, Drawer, Flex, Grid, Skeleton, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { isCancelablePrintJob } from '@cpc/contracts/integration-constants';
import { useJob } from '../api/integration';
import { JOB_STATE_COLOR } from '../utils/format';
import { formatSeconds } from '../../../lib/format/relative-time';
import { CodeBlock } from './code-block';
import { Receipt } from './receipt';

/** Only a job never sent can be canceled (the server refuses the rest: they may print). */
export const isCancelable = isCancelablePrintJob;

interface JobDrawerProps {
  jobId: string | null;
  onClose: () => void;
  /** Absent for users who may only look. */
  onCancel?: (id: string) => void;
}

/** One print job: where it is, its times, and the receipt as the printer prints it. */
export function JobDrawer({ jobId, onClose, onCancel }: JobDrawerProps) {
  const { t } = useTranslation();
  const screens = Grid.useBreakpoint();
  const job = useJob(jobId);
  const d = job.data;
  return (
    <Drawer
      open={!!jobId}
      onClose={onClose}
      title={t('integration.jobs.detailTitle')}
      size={screens.md ? 640 : '100%'}
      destroyOnHidden
      data-testid="job-drawer"
      extra={
        d && onCancel && isCancelable(d) ? (
          <Button danger size="small" onClick={() => onCancel(d.id)}>
            {t('integration.jobs.cancel')}
          </Button>
        ) : null
      }
    >
      {!d ? (
        <Skeleton active paragraph={{ rows: 8 }} />
      ) : (
        <Flex vertical gap={16}>
          <Descriptions column={1} size="small" bordered styles={{ label: { width: 120 } }}>
            <Descriptions.Item label={t('integration.jobs.state')}>
              <Tag color={JOB_STATE_COLOR[d.state]} data-testid="job-state" data-state={d.state}>
                {t(`integration.jobState.${d.state}`)}
              </Tag>
            </Descriptions.Item>
            <Descriptions.Item label={t('integration.jobs.id')}>
              <Typography.Text copyable style={{ wordBreak: 'break-all' }}>
                {d.id}
              </Typography.Text>
            </Descriptions.Item>
            <Descriptions.Item label={t('integration.jobs.originId')}>
              <Typography.Text style={{ wordBreak: 'break-all' }}>{d.originId}</Typography.Text>
            </Descriptions.Item>
            <Descriptions.Item label={t('integration.jobs.device')}>
              {d.deviceName ? `${d.deviceName} · ${d.deviceSn}` : d.deviceSn}
            </Descriptions.Item>
            <Descriptions.Item label={t('integration.jobs.key')}>
              {d.keyName ? `${d.keyName} · ${d.appId}` : t('integration.jobs.keyDeleted')}
            </Descriptions.Item>
            <Descriptions.Item label={t('integration.jobs.copiesAttempts')}>
              {t('integration.jobs.copiesAttemptsValue', { copies: d.copies, attempts: d.attempts })}
            </Descriptions.Item>
            <Descriptions.Item label={t('integration.jobs.times')}>
              <Flex vertical gap={2} style={{ fontSize: 12 }}>
                {(
                  [
                    ['createdAt', d.createdAt],
                    ['sentAt', d.sentAt],
                    ['deliveredAt', d.deliveredAt],
                    ['startedAt', d.startedAt],
                    ['finishedAt', d.finishedAt],
                    ['expireAt', d.expireAt],
                  ] as const
                ).map(([k, v]) => (
                  <span key={k}>
                    <Typography.Text type="secondary">{t(`integration.jobs.time.${k}`)}</Typography.Text>{' '}
                    {formatSeconds(v)}
                  </span>
                ))}
              </Flex>
            </Descriptions.Item>
          </Descriptions>
          {d.error && <Alert type="error" showIcon title={d.error} />}
          <div>
            <Typography.Title level={5}>{t('integration.jobs.preview', { columns: d.columns })}</Typography.Title>
            <Receipt lines={d.preview} columns={d.columns} />
          </div>
          <Collapse
            size="small"
            items={[
              {
                key: 'content',
                label: t('integration.jobs.content', {
                  format: d.format === 'escpos' ? 'ESC/POS' : t('integration.jobs.formatMarkup'),
                }),
                children: <CodeBlock code={d.content} maxHeight={320} />,
              },
            ]}
          />
        </Flex>
      )}
    </Drawer>
  );
}
