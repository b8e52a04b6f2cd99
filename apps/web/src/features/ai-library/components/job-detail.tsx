import { CopyOutlined, PrinterOutlined } from '@ant-design/icons';
import {
  App,
  Alert,
  Button,
  Col,
  Descriptions,
  Empty,
  Flex,
  Image,
  Progress,
  Row,
  Space,
  Table,
  Tag,
  Typography,
} from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { OCR_ERRORS } from '@cpc/contracts/ai-library-constants';
import type { OcrJob } from '@cpc/contracts/ai-library';
import { formatDateTime } from '@/lib/format/relative-time';
import { usePermission } from '@/lib/session';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { usePrintOcr } from '../api/ocr';
import { STATE_COLOR } from '../utils/image-check';
import { DeviceSelect } from './device-select';

/** One job: the image beside the recognised text, its lines with their confidence, copy and print. */
export function JobDetail({ job }: { job: OcrJob }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const canPrint = usePermission(PERMISSIONS.aiLibraryEdit);
  const [deviceId, setDeviceId] = useState<number | undefined>();
  const print = usePrintOcr();
  const errorText = (code: string) =>
    (OCR_ERRORS as readonly string[]).includes(code) ? t(`aiLibrary.error.${code}`) : code;

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(job.text);
      message.success(t('aiLibrary.cloud.copied'));
    } catch {
      message.error(t('aiLibrary.cloud.copyFailed'));
    }
  };
  const doPrint = async () => {
    if (!deviceId) return;
    try {
      await print.mutateAsync({ id: job.id, deviceId });
      message.success(t('aiLibrary.cloud.printSent'));
    } catch (err) {
      message.error(err instanceof Error ? err.message : String(err));
    }
  };

  return (
    <Flex vertical gap={16} data-testid="ocr-detail">
      <Space wrap>
        <Typography.Text strong>{job.fileName}</Typography.Text>
        <Tag color={STATE_COLOR[job.state]}>{t(`aiLibrary.state.${job.state}`)}</Tag>
      </Space>
      <Row gutter={[16, 16]}>
        <Col xs={24} md={12}>
          <Image
            src={job.imageUrl}
            alt={job.fileName}
            style={{ maxWidth: '100%', border: '1px solid var(--ant-color-border-secondary)', borderRadius: 8 }}
          />
        </Col>
        <Col xs={24} md={12}>
          {job.state === 'done' ? (
            job.text ? (
              <Typography.Paragraph
                data-testid="ocr-text"
                style={{
                  whiteSpace: 'pre-wrap',
                  padding: 12,
                  margin: 0,
                  background: 'var(--ant-color-fill-quaternary)',
                  borderRadius: 8,
                  minHeight: 120,
                }}
              >
                {job.text}
              </Typography.Paragraph>
            ) : (
              <Empty description={t('aiLibrary.cloud.noText')} />
            )
          ) : job.state === 'failed' ? (
            <Alert type="error" showIcon message={t('aiLibrary.cloud.failed')} description={errorText(job.error)} />
          ) : (
            <Flex vertical align="center" gap={8} style={{ padding: 24 }}>
              <Progress
                type="circle"
                percent={job.state === 'running' ? 60 : 10}
                status="active"
                showInfo={false}
                size={48}
              />
              <Typography.Text type="secondary">{t(`aiLibrary.cloud.wait.${job.state}`)}</Typography.Text>
            </Flex>
          )}
        </Col>
      </Row>
      {job.state === 'done' && job.text && (
        <Flex wrap gap={8} align="center">
          <Button icon={<CopyOutlined />} onClick={copy}>
            {t('aiLibrary.cloud.copy')}
          </Button>
          {canPrint && (
            <>
              <DeviceSelect value={deviceId} onChange={setDeviceId} style={{ minWidth: 220, maxWidth: '100%' }} />
              <Button
                type="primary"
                icon={<PrinterOutlined />}
                disabled={!deviceId}
                loading={print.isPending}
                onClick={doPrint}
              >
                {t('aiLibrary.cloud.print')}
              </Button>
            </>
          )}
        </Flex>
      )}
      {job.state === 'done' && job.lines.length > 0 && (
        <Table
          size="small"
          rowKey={(_, i) => String(i)}
          pagination={false}
          dataSource={job.lines}
          scroll={{ x: 'max-content' }}
          columns={[
            { title: t('aiLibrary.cloud.line'), dataIndex: 'text' },
            {
              title: t('aiLibrary.cloud.confidence'),
              dataIndex: 'confidence',
              width: 120,
              render: (c: number) => (
                <Tag color={c >= 80 ? 'success' : c >= 60 ? 'warning' : 'error'}>{c.toFixed(0)}%</Tag>
              ),
            },
          ]}
        />
      )}
      <Descriptions
        size="small"
        column={{ xs: 1, sm: 2 }}
        items={[
          { key: 'language', label: t('aiLibrary.cloud.language'), children: job.language || '—' },
          {
            key: 'duration',
            label: t('aiLibrary.cloud.duration'),
            children: job.durationMs === null ? '—' : t('aiLibrary.cloud.ms', { n: job.durationMs }),
          },
          { key: 'created', label: t('aiLibrary.cloud.created'), children: formatDateTime(job.createdAt) },
          { key: 'expires', label: t('aiLibrary.cloud.expires'), children: formatDateTime(job.expiresAt) },
          { key: 'by', label: t('aiLibrary.cloud.by'), children: job.createdBy ?? t('aiLibrary.cloud.openApi') },
        ]}
      />
    </Flex>
  );
}
