import { BugOutlined } from '@ant-design/icons';
import { Badge, Button, Collapse, Flex, Modal, Tag, Tooltip, Typography, theme } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useErrorLog, type ErrorLogEntry } from '../../lib/error-log';
import { ADMIN_ROLE } from '@cpc/contracts';
import { useLanguage } from '../../lib/i18n';
import { usePermission } from '../../lib/session';
import { localeOf } from './intl-locale';

function Block({ title, text }: { title: string; text: string }) {
  const { token } = theme.useToken();
  return (
    <div>
      <Typography.Text type="secondary" style={{ fontSize: token.fontSizeSM }}>
        {title}
      </Typography.Text>
      <pre
        style={{
          margin: '4px 0 0',
          padding: 8,
          maxHeight: 240,
          overflow: 'auto',
          fontSize: token.fontSizeSM,
          whiteSpace: 'pre-wrap',
          wordBreak: 'break-word',
          background: token.colorFillQuaternary,
          borderRadius: token.borderRadiusSM,
        }}
      >
        {text}
      </pre>
    </div>
  );
}

function EntryLabel({ entry, time }: { entry: ErrorLogEntry; time: string }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  return (
    <Flex vertical gap={4} style={{ minWidth: 0 }}>
      <Typography.Text type="danger" strong style={{ overflowWrap: 'anywhere' }} data-testid="error-log-message">
        {entry.err.message}
      </Typography.Text>
      <Flex wrap gap={8} align="center" style={{ fontSize: token.fontSizeSM }}>
        <span>
          <Typography.Text type="secondary">{t('layout.header.errorLog.route')}: </Typography.Text>
          <Typography.Text code data-testid="error-log-url">
            {entry.url}
          </Typography.Text>
        </span>
        <Typography.Text type="secondary">
          {t('layout.header.errorLog.time')}: {time}
        </Typography.Text>
        {entry.count > 1 && <Tag color="orange">{t('layout.header.errorLog.repeated', { count: entry.count })}</Tag>}
      </Flex>
    </Flex>
  );
}

/**
 * The error-log panel (SPEC §8), for staff: uncaught UI errors and calls the server failed (5xx) or never
 * answered, with the page they happened on.
 * The button shows only while there is something to see; "do not show" empties the log, which hides it
 * until the next error.
 */
export function ErrorLogButton() {
  const { t } = useTranslation();
  const { language } = useLanguage();
  const logs = useErrorLog((s) => s.logs);
  // staff only (SPEC §6: Admin); customers' errors go to the server's log
  const staff = usePermission([ADMIN_ROLE]);
  const clear = useErrorLog((s) => s.clear);
  const [open, setOpen] = useState(false);
  const format = useMemo(
    () => new Intl.DateTimeFormat(localeOf(language), { dateStyle: 'short', timeStyle: 'medium' }),
    [language],
  );

  if (!logs.length || !staff) return null;

  // newest first: the error the user just saw is on top
  const items = logs
    .map((entry, i) => ({ entry, key: String(i) }))
    .reverse()
    .map(({ entry, key }) => ({
      key,
      label: <EntryLabel entry={entry} time={format.format(entry.time)} />,
      children: (
        <Flex vertical gap={8}>
          {entry.details && <Block title={t('layout.header.errorLog.details')} text={entry.details} />}
          {entry.err.stack && <Block title={t('layout.header.errorLog.stack')} text={entry.err.stack} />}
        </Flex>
      ),
    }));

  const dismiss = () => {
    setOpen(false);
    clear();
  };

  return (
    <>
      <Tooltip title={t('layout.header.errorLog.button')}>
        <Button
          type="text"
          onClick={() => setOpen(true)}
          aria-label={t('layout.header.errorLog.button')}
          data-testid="error-log-button"
        >
          <Badge count={logs.length} size="small" offset={[2, -2]} overflowCount={99}>
            <BugOutlined style={{ fontSize: 16 }} />
          </Badge>
        </Button>
      </Tooltip>
      <Modal
        open={open}
        onCancel={() => setOpen(false)}
        title={
          <Flex align="baseline" gap={8}>
            <span>{t('layout.header.errorLog.title')}</span>
            <Typography.Text type="secondary" style={{ fontWeight: 'normal', fontSize: 13 }}>
              {t('layout.header.errorLog.count', { count: logs.length })}
            </Typography.Text>
          </Flex>
        }
        width={{ xs: 'calc(100vw - 16px)', md: 860 }}
        rootClassName="error-log-panel"
        footer={
          <Flex justify="flex-end" gap={8}>
            <Button danger onClick={dismiss} data-testid="error-log-dismiss">
              {t('layout.header.errorLog.dismiss')}
            </Button>
            <Button type="primary" onClick={() => setOpen(false)}>
              {t('layout.header.errorLog.close')}
            </Button>
          </Flex>
        }
        styles={{ body: { maxHeight: '65vh', overflowY: 'auto' } }}
      >
        <Collapse size="small" items={items} defaultActiveKey={items.length ? [items[0].key] : []} />
      </Modal>
    </>
  );
}
