import { PrinterOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import {
  Alert,
  App,
  Button,
  Card,
  Col,
  Empty,
  Flex,
  Form,
  Input,
  InputNumber,
  Row,
  Select,
  Skeleton,
  Tag,
  Typography,
} from 'antd';
import type { GetRef } from 'antd';
import { useDeferredValue, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { PrintJobItem } from '@cpc/contracts/integration';
import { FINAL_PRINT_JOB_STATES, PRINT_CONTENT_MAX, PRINT_COPIES_MAX } from '@cpc/contracts/integration-constants';
import { INTEGRATION_KEY, previewMarkup, useJob, useKeys, useTestPrint } from '../api/integration';
import { JOB_STATE_COLOR } from '../utils/format';
import { formatSeconds } from '../../../lib/format/relative-time';
import { checkMarkup, markupErrorOf, markupErrorText } from '../utils/markup';
import { DeviceSelect } from './device-select';
import { Receipt } from './receipt';
import { useFormLanguage } from '@/lib/use-form-language';

export const SAMPLE_RECEIPT = [
  '<C><L>Test print</L></C>',
  '<C>测试打印</C>',
  '<HR>',
  'Coffee x2          30.00',
  'Bagel x1           12.50',
  '<HR>',
  '<R><B>Total 42.50</B></R>',
  '<C><QR>https://example.com/order/1001</QR></C>',
  '<CUT>',
].join('\n');

/** Snippets the editor's buttons insert at the cursor. */
const SNIPPETS: Array<[string, string]> = [
  ['C', '<C></C>'],
  ['R', '<R></R>'],
  ['B', '<B></B>'],
  ['L', '<L></L>'],
  ['HR', '<HR>\n'],
  ['QR', '<QR>https://</QR>\n'],
  ['BAR', '<BAR>123456</BAR>\n'],
  ['CUT', '<CUT>\n'],
];

interface Values {
  keyId?: number;
  deviceId?: number;
  copies: number;
}

/** Prints on one of the account's devices through the open API, signed with a chosen key; the preview follows the editor. */
export function TestPrintPanel() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const [content, setContent] = useState(SAMPLE_RECEIPT);
  const [job, setJob] = useState<PrintJobItem | null>(null);
  const editor = useRef<GetRef<typeof Input.TextArea>>(null);
  const keys = useKeys({ pageNo: 1, pageSize: 100 });
  const print = useTestPrint();
  const deviceId = Form.useWatch('deviceId', form);
  const activeKeys = (keys.data?.list ?? []).filter((k) => k.state === 'active');

  // the first active key is the usual choice
  const firstKey = activeKeys[0]?.id;
  useEffect(() => {
    if (!form.getFieldValue('keyId') && firstKey) form.setFieldValue('keyId', firstKey);
  }, [firstKey, form]);

  const localError = checkMarkup(content);
  const typed = useDeferredValue(content);
  const preview = useQuery({
    queryKey: [...INTEGRATION_KEY, 'preview', typed, deviceId ?? null],
    queryFn: () => previewMarkup({ content: typed, deviceId: deviceId ?? undefined }),
    enabled: !checkMarkup(typed),
    retry: false,
    staleTime: Infinity,
    placeholderData: (prev) => prev,
  });
  const serverError = preview.isError ? markupErrorOf(preview.error) : null;
  const error = localError ?? serverError;

  const insert = (snippet: string) => {
    const area = editor.current?.resizableTextArea?.textArea;
    const start = area?.selectionStart ?? content.length;
    const end = area?.selectionEnd ?? content.length;
    const next = content.slice(0, start) + snippet + content.slice(end);
    setContent(next);
    // put the cursor inside a pair (<C>|</C>) or after a single tag
    const inner = snippet.indexOf('></') + 1 || snippet.length;
    requestAnimationFrame(() => {
      area?.focus();
      area?.setSelectionRange(start + inner, start + inner);
    });
  };

  const submit = async () => {
    let values: Values;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    if (localError) return;
    try {
      const made = await print.mutateAsync({
        keyId: values.keyId!,
        deviceId: values.deviceId!,
        content,
        copies: values.copies,
      });
      setJob(made);
      message.success(t('integration.test.sent'));
    } catch (err) {
      const markup = markupErrorOf(err);
      message.error(markup ? markupErrorText(markup, t) : err instanceof Error ? err.message : String(err));
    }
  };

  if (keys.data && activeKeys.length === 0) {
    return <Empty description={t('integration.test.noKey')} />;
  }

  return (
    <Row gutter={[24, 24]}>
      <Col xs={24} lg={13}>
        <Form<Values> form={form} layout="vertical" initialValues={{ copies: 1 }} name="testPrint">
          <Row gutter={12}>
            <Col xs={24} sm={12}>
              <Form.Item
                name="keyId"
                label={t('integration.test.key')}
                rules={[{ required: true, message: t('integration.test.keyRequired') }]}
              >
                <Select<number>
                  options={activeKeys.map((k) => ({ value: k.id, label: `${k.name} · ${k.appId}` }))}
                  loading={keys.isPending}
                  popupMatchSelectWidth={false}
                />
              </Form.Item>
            </Col>
            <Col xs={24} sm={12}>
              <Form.Item
                name="deviceId"
                label={t('integration.test.device')}
                rules={[{ required: true, message: t('integration.test.deviceRequired') }]}
              >
                <DeviceSelect placeholder={t('integration.test.devicePlaceholder')} style={{ width: '100%' }} />
              </Form.Item>
            </Col>
          </Row>
          <Form.Item
            label={t('integration.test.content')}
            required
            validateStatus={error ? 'error' : undefined}
            help={error ? <span data-testid="markup-error">{markupErrorText(error, t)}</span> : undefined}
          >
            <Flex vertical gap={8}>
              <Flex gap={4} wrap>
                {SNIPPETS.map(([tag, snippet]) => (
                  <Button key={tag} size="small" onClick={() => insert(snippet)}>
                    {`<${tag}>`}
                  </Button>
                ))}
                <Button size="small" type="link" onClick={() => setContent(SAMPLE_RECEIPT)}>
                  {t('integration.test.sample')}
                </Button>
              </Flex>
              <Input.TextArea
                ref={editor}
                value={content}
                onChange={(e) => setContent(e.target.value)}
                autoSize={{ minRows: 10, maxRows: 22 }}
                maxLength={PRINT_CONTENT_MAX}
                spellCheck={false}
                aria-label={t('integration.test.content')}
                data-testid="markup-editor"
                style={{ fontFamily: 'var(--ant-font-family-code, monospace)', fontSize: 13 }}
              />
            </Flex>
          </Form.Item>
          <Flex gap={12} align="flex-end" wrap>
            <Form.Item name="copies" label={t('integration.test.copies')} style={{ marginBottom: 0 }}>
              <InputNumber min={1} max={PRINT_COPIES_MAX} precision={0} style={{ width: 100 }} />
            </Form.Item>
            <Button
              type="primary"
              icon={<PrinterOutlined />}
              loading={print.isPending}
              disabled={!!localError}
              onClick={() => void submit()}
            >
              {t('integration.test.submit')}
            </Button>
          </Flex>
        </Form>
        {job && <JobProgress job={job} />}
      </Col>
      <Col xs={24} lg={11}>
        <Typography.Title level={5} style={{ marginTop: 0 }}>
          {t('integration.test.preview')}
          {preview.data && (
            <Typography.Text type="secondary" style={{ fontSize: 12, fontWeight: 'normal', marginInlineStart: 8 }}>
              {t('integration.test.paper', { mm: preview.data.paperWidthMm, columns: preview.data.columns })}
            </Typography.Text>
          )}
        </Typography.Title>
        {preview.data ? (
          <Receipt
            lines={preview.data.lines}
            columns={preview.data.columns}
            style={{ opacity: error || preview.isFetching ? 0.5 : 1, transition: 'opacity .2s' }}
          />
        ) : preview.isPending && !localError ? (
          <Skeleton active paragraph={{ rows: 8 }} title={false} />
        ) : (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('integration.test.noPreview')} />
        )}
      </Col>
    </Row>
  );
}

/** The job a test print made, followed until it is final. */
function JobProgress({ job }: { job: PrintJobItem }) {
  const { t } = useTranslation();
  const detail = useJob(job.id);
  const d = detail.data ?? job;
  const final = (FINAL_PRINT_JOB_STATES as readonly string[]).includes(d.state);
  return (
    <Card size="small" style={{ marginTop: 16 }} data-testid="test-job" title={t('integration.test.job')}>
      <Flex vertical gap={6}>
        <Flex gap={8} align="center" wrap>
          <Tag color={JOB_STATE_COLOR[d.state]} data-testid="test-job-state" data-state={d.state}>
            {t(`integration.jobState.${d.state}`)}
          </Tag>
          {!final && <Typography.Text type="secondary">{t('integration.test.following')}</Typography.Text>}
        </Flex>
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {t('integration.test.jobLine', {
            id: d.id,
            device: d.deviceName || d.deviceSn,
            time: formatSeconds(d.createdAt),
          })}
        </Typography.Text>
        {d.error && <Alert type="error" showIcon title={d.error} />}
      </Flex>
    </Card>
  );
}
