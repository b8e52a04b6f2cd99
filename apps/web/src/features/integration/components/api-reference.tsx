import { LinkOutlined } from '@ant-design/icons';
import { Collapse, Flex, Segmented, Select, Table, Tag, Typography, theme } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import {
  NONCE_RULE,
  OPEN_API_PREFIX,
  OPEN_AUTH_REASONS,
  OPEN_CLOCK_WINDOW_S,
  OPEN_HEADERS,
  RATE_LIMITED_REASON,
  WEBHOOK_BACKOFF_DEFAULT_S,
  WEBHOOK_EVENT,
  WEBHOOK_HEADERS,
} from '@cpc/contracts/integration-constants';
import { useDeviceOptions, useKeys } from '../api/integration';
import {
  APP_ID_PLACEHOLDER,
  DEVICE_SN_PLACEHOLDER,
  EXAMPLE_LANGUAGES,
  JOB_ID_PLACEHOLDER,
  OPEN_CALLS,
  SECRET_ENV,
  buildExample,
  openApiDocUrl,
  type ExampleLanguage,
} from '../utils/examples';
import { CodeBlock } from './code-block';

const LANGUAGE_LABEL: Record<ExampleLanguage, string> = { curl: 'curl', node: 'Node.js', python: 'Python' };
const MARKUP_ROWS = ['text', 'BR', 'C', 'B', 'L', 'HR', 'CUT', 'QR', 'BAR', 'IMG', 'entities'] as const;
const MARKUP_SYNTAX: Record<(typeof MARKUP_ROWS)[number], string> = {
  text: 'Hello',
  BR: '<BR>',
  C: '<C>…</C>  <R>…</R>',
  B: '<B>…</B>',
  L: '<L>…</L>',
  HR: '<HR>',
  CUT: '<CUT>',
  QR: '<QR>data</QR>',
  BAR: '<BAR>data</BAR>',
  IMG: '<IMG>https://…</IMG>',
  entities: '&lt; &gt; &amp;',
};

const headerName = (name: string) =>
  name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());

/** The open API as an integrator needs it: the signature, each call with copyable examples, the markup, webhooks. */
export function ApiReference() {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const keys = useKeys({ pageNo: 1, pageSize: 100 });
  const devices = useDeviceOptions('');
  const [keyId, setKeyId] = useState<number | null>(null);
  const [language, setLanguage] = useState<ExampleLanguage>('curl');
  const list = keys.data?.list ?? [];
  const key = list.find((k) => k.id === keyId) ?? list.find((k) => k.state === 'active') ?? list[0];
  const origin = window.location.origin;
  const values = {
    origin,
    appId: key?.appId ?? APP_ID_PLACEHOLDER,
    deviceSn: devices.data?.list[0]?.sn ?? DEVICE_SN_PLACEHOLDER,
    jobId: JOB_ID_PLACEHOLDER,
  };
  const signRecipe = ['POST', `${OPEN_API_PREFIX}/print`, '', '1767225600', 'n0nce-3f9a2c1b', 'sha256hex(body)'].join(
    '\n',
  );
  const section = (title: string, children: ReactNode, id: string) => (
    <section data-testid={`ref-${id}`}>
      <Typography.Title level={5} style={{ marginTop: 0 }}>
        {title}
      </Typography.Title>
      {children}
    </section>
  );
  const headerRows = (Object.keys(OPEN_HEADERS) as Array<keyof typeof OPEN_HEADERS>).map((k) => ({
    key: k,
    name: headerName(OPEN_HEADERS[k]),
    meaning: t(`integration.ref.header.${k}`, { window: OPEN_CLOCK_WINDOW_S }),
  }));

  return (
    <Flex vertical gap={24} style={{ maxWidth: 980 }}>
      <Flex vertical gap={8}>
        <Typography.Paragraph style={{ marginBottom: 0 }}>{t('integration.ref.intro')}</Typography.Paragraph>
        <Flex gap={8} wrap align="center">
          <Typography.Text type="secondary">{t('integration.ref.baseUrl')}</Typography.Text>
          <Typography.Text code copyable>{`${origin}${OPEN_API_PREFIX}`}</Typography.Text>
          <Typography.Link href={openApiDocUrl(origin)} target="_blank" rel="noreferrer" data-testid="openapi-link">
            <LinkOutlined /> {t('integration.ref.openapi')}
          </Typography.Link>
        </Flex>
        <Flex gap={8} wrap align="center">
          <Typography.Text type="secondary">{t('integration.ref.exampleKey')}</Typography.Text>
          <Select<number>
            value={key?.id}
            onChange={setKeyId}
            placeholder={t('integration.ref.noKey')}
            options={list.map((k) => ({ value: k.id, label: `${k.name} · ${k.appId}` }))}
            style={{ minWidth: 240, maxWidth: '100%' }}
            popupMatchSelectWidth={false}
            aria-label={t('integration.ref.exampleKey')}
          />
        </Flex>
        <Typography.Text type="secondary">{t('integration.ref.secretNote', { env: SECRET_ENV })}</Typography.Text>
      </Flex>

      {section(
        t('integration.ref.signTitle'),
        <Flex vertical gap={12}>
          <Table
            size="small"
            pagination={false}
            rowKey="key"
            dataSource={headerRows}
            columns={[
              {
                key: 'name',
                dataIndex: 'name',
                title: t('integration.ref.headerName'),
                width: 180,
                render: (v: string) => <Typography.Text code>{v}</Typography.Text>,
              },
              { key: 'meaning', dataIndex: 'meaning', title: t('integration.ref.headerMeaning') },
            ]}
            scroll={{ x: 560 }}
          />
          <ol style={{ margin: 0, paddingInlineStart: 20 }}>
            <li>{t('integration.ref.step.string')}</li>
            <li>{t('integration.ref.step.query')}</li>
            <li>{t('integration.ref.step.body')}</li>
            <li>{t('integration.ref.step.hmac')}</li>
            <li>{t('integration.ref.step.nonce', { rule: NONCE_RULE.source, window: OPEN_CLOCK_WINDOW_S })}</li>
          </ol>
          <CodeBlock code={`${t('integration.ref.stringToSignComment')}\n${signRecipe}`} testId="sign-recipe" />
          <Typography.Text type="secondary">{t('integration.ref.refusals')}</Typography.Text>
          <Flex gap={4} wrap>
            {[...OPEN_AUTH_REASONS, RATE_LIMITED_REASON].map((r) => (
              <Tag key={r} title={t(`integration.reason.${r}`)} style={{ marginInlineEnd: 0 }}>
                {r}
              </Tag>
            ))}
          </Flex>
        </Flex>,
        'sign',
      )}

      {section(
        t('integration.ref.callsTitle'),
        <Flex vertical gap={12}>
          <Segmented<ExampleLanguage>
            value={language}
            onChange={setLanguage}
            options={EXAMPLE_LANGUAGES.map((l) => ({ value: l, label: LANGUAGE_LABEL[l] }))}
            style={{ alignSelf: 'flex-start' }}
            data-testid="example-language"
          />
          <Collapse
            defaultActiveKey={['print']}
            items={OPEN_CALLS.map((call) => ({
              key: call.id,
              label: (
                <Flex gap={8} align="center" wrap>
                  <Tag
                    color={call.method === 'GET' ? 'blue' : 'green'}
                    style={{ marginInlineEnd: 0, fontFamily: token.fontFamilyCode }}
                  >
                    {call.method}
                  </Tag>
                  <Typography.Text code>{call.route}</Typography.Text>
                  <Typography.Text type="secondary">{t(`integration.ref.call.${call.id}`)}</Typography.Text>
                </Flex>
              ),
              children: (
                <Flex vertical gap={8}>
                  <Typography.Text>{t(`integration.ref.callAnswer.${call.id}`)}</Typography.Text>
                  <CodeBlock
                    code={buildExample(language, call, values)}
                    testId={`example-${call.id}`}
                    maxHeight={460}
                  />
                </Flex>
              ),
            }))}
          />
        </Flex>,
        'calls',
      )}

      {section(
        t('integration.ref.markupTitle'),
        <Flex vertical gap={8}>
          <Typography.Text type="secondary">{t('integration.ref.markupIntro')}</Typography.Text>
          <Table
            size="small"
            pagination={false}
            rowKey="tag"
            dataSource={MARKUP_ROWS.map((tag) => ({
              tag,
              syntax: MARKUP_SYNTAX[tag],
              meaning: t(`integration.ref.markup.${tag}`),
            }))}
            columns={[
              {
                key: 'syntax',
                dataIndex: 'syntax',
                title: t('integration.ref.markupSyntax'),
                width: 220,
                render: (v: string) => <Typography.Text code>{v}</Typography.Text>,
              },
              { key: 'meaning', dataIndex: 'meaning', title: t('integration.ref.markupMeaning') },
            ]}
            scroll={{ x: 560 }}
          />
        </Flex>,
        'markup',
      )}

      {section(
        t('integration.ref.webhookTitle'),
        <Flex vertical gap={8}>
          <Typography.Text>{t('integration.ref.webhookIntro', { event: WEBHOOK_EVENT })}</Typography.Text>
          <Flex gap={4} wrap>
            {Object.values(WEBHOOK_HEADERS).map((h) => (
              <Typography.Text key={h} code>
                {headerName(h)}
              </Typography.Text>
            ))}
          </Flex>
          <Typography.Text>
            {t('integration.ref.webhookSignature', { header: headerName(WEBHOOK_HEADERS.signature) })}
          </Typography.Text>
          <Typography.Text type="secondary">
            {t('integration.ref.webhookRetry', {
              tries: WEBHOOK_BACKOFF_DEFAULT_S.length + 1,
              minutes: Math.round(WEBHOOK_BACKOFF_DEFAULT_S.reduce((a, b) => a + b, 0) / 60),
            })}
          </Typography.Text>
        </Flex>,
        'webhooks',
      )}
    </Flex>
  );
}
