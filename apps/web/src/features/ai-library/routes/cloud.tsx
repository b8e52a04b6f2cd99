import { InboxOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { App, Card, Col, Empty, Flex, List, Pagination, Progress, Row, Tag, Typography, Upload } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { OCR_MAX_BYTES, OCR_RETENTION_DAYS } from '@cpc/contracts/ai-library-constants';
import { useLiveEvents } from '@/lib/live-events';
import { formatDateTime } from '@/lib/format/relative-time';
import { usePermission } from '@/lib/session';
import { AI_KEY, useOcrJob, useOcrJobs, useOcrStatus, useSubmitOcr } from '../api/ocr';
import { JobDetail } from '../components/job-detail';
import { OCR_ACCEPT_ATTR, STATE_COLOR, checkOcrImage } from '../utils/image-check';

const PAGE_SIZE = 10;

/**
 * Cloud AI (issue 15): text recognition of a document image. Upload an image, follow its job live, read the text
 * beside the image, copy it or print it as a receipt on one of the account's printers.
 */
export default function AiCloudPage() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const client = useQueryClient();
  const canSubmit = usePermission(PERMISSIONS.aiLibraryEdit);
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<number | null>(null);
  const [percent, setPercent] = useState<number | null>(null);
  const jobs = useOcrJobs(page, PAGE_SIZE);
  const status = useOcrStatus();
  const job = useOcrJob(selected);
  const submit = useSubmitOcr();

  useLiveEvents({ aiLibrary: () => void client.invalidateQueries({ queryKey: AI_KEY }) });

  // the newest job is shown until the user picks another
  const first = jobs.data?.list[0]?.id ?? null;
  useEffect(() => {
    if (selected === null && first !== null) setSelected(first);
  }, [first, selected]);

  const send = async (file: File) => {
    const problem = checkOcrImage(file);
    if (problem) {
      message.error(t(`aiLibrary.cloud.bad.${problem}`, { n: OCR_MAX_BYTES / 1024 / 1024 }));
      return;
    }
    setPercent(0);
    try {
      const made = await submit.mutateAsync({ file, onProgress: setPercent });
      setSelected(made.id);
      setPage(1);
      message.success(t('aiLibrary.cloud.queued'));
    } catch (err) {
      message.error(err instanceof Error ? err.message : String(err));
    } finally {
      setPercent(null);
    }
  };

  return (
    <Card variant="borderless">
      <Flex vertical gap={16}>
        <div>
          <Typography.Title level={4} style={{ margin: 0 }}>
            {t('aiLibrary.cloud.title')}
          </Typography.Title>
          <Typography.Text type="secondary">
            {t('aiLibrary.cloud.subtitle', { days: OCR_RETENTION_DAYS })}
          </Typography.Text>
        </div>
        <Row gutter={[24, 24]}>
          <Col xs={24} lg={9}>
            <Flex vertical gap={12}>
              {canSubmit && (
                <Upload.Dragger
                  accept={OCR_ACCEPT_ATTR}
                  multiple={false}
                  showUploadList={false}
                  disabled={percent !== null}
                  beforeUpload={(file) => {
                    void send(file);
                    return false;
                  }}
                  data-testid="ocr-upload"
                >
                  <p className="ant-upload-drag-icon">
                    <InboxOutlined />
                  </p>
                  <p className="ant-upload-text">{t('aiLibrary.cloud.drop')}</p>
                  <p className="ant-upload-hint">{t('aiLibrary.cloud.hint', { n: OCR_MAX_BYTES / 1024 / 1024 })}</p>
                  {percent !== null && <Progress percent={percent} size="small" style={{ padding: '0 16px' }} />}
                </Upload.Dragger>
              )}
              {status.data && (
                <Typography.Text type="secondary">
                  {t('aiLibrary.cloud.status', { active: status.data.active, limit: status.data.limit })}
                </Typography.Text>
              )}
              <List
                bordered
                loading={jobs.isLoading}
                dataSource={jobs.data?.list ?? []}
                locale={{ emptyText: <Empty description={t('aiLibrary.cloud.empty')} /> }}
                renderItem={(j) => (
                  <List.Item
                    key={j.id}
                    onClick={() => setSelected(j.id)}
                    style={{
                      cursor: 'pointer',
                      background: j.id === selected ? 'var(--ant-control-item-bg-active)' : undefined,
                    }}
                    data-testid="ocr-job"
                  >
                    <Flex vertical style={{ minWidth: 0, flex: 1 }}>
                      <Typography.Text ellipsis>{j.fileName || `#${j.id}`}</Typography.Text>
                      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                        {formatDateTime(j.createdAt)}
                      </Typography.Text>
                    </Flex>
                    <Tag color={STATE_COLOR[j.state]}>{t(`aiLibrary.state.${j.state}`)}</Tag>
                  </List.Item>
                )}
              />
              {(jobs.data?.total ?? 0) > PAGE_SIZE && (
                <Pagination
                  size="small"
                  current={page}
                  pageSize={PAGE_SIZE}
                  total={jobs.data?.total ?? 0}
                  onChange={setPage}
                  showSizeChanger={false}
                />
              )}
            </Flex>
          </Col>
          <Col xs={24} lg={15}>
            {job.data ? (
              <JobDetail key={job.data.id} job={job.data} />
            ) : (
              <Empty description={t('aiLibrary.cloud.pick')} />
            )}
          </Col>
        </Row>
      </Flex>
    </Card>
  );
}
