import { LinkOutlined, NotificationOutlined } from '@ant-design/icons';
import { Flex, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { PushKind } from '@cpc/contracts/push';

/**
 * How a print terminal's screen shows the push: a dark screen in a device frame with the message card on it — a
 * screen notice as a banner with its countdown, an image above the text, a link as a button.
 */
export function TerminalPreview({
  kind,
  title,
  body,
  imageUrl,
  link,
  noticeSeconds,
}: {
  kind: PushKind;
  title: string;
  body: string;
  imageUrl?: string | null;
  link?: string | null;
  noticeSeconds?: number | null;
}) {
  const { t } = useTranslation();
  const notice = kind === 'notice';
  return (
    <div
      data-testid="push-preview"
      aria-label={t('push.preview.label')}
      style={{
        background: '#1f1f1f',
        borderRadius: 18,
        padding: 10,
        maxWidth: 300,
        width: '100%',
        margin: '0 auto',
        boxShadow: '0 2px 8px rgba(0,0,0,0.25)',
      }}
    >
      <div
        style={{
          background: 'linear-gradient(160deg, #16324f 0%, #0b1a2a 100%)',
          borderRadius: 10,
          minHeight: 220,
          padding: 12,
          display: 'flex',
          flexDirection: 'column',
          justifyContent: notice ? 'flex-start' : 'center',
          color: '#fff',
        }}
      >
        <div
          style={{
            background: notice ? '#d4380d' : 'rgba(255,255,255,0.95)',
            color: notice ? '#fff' : '#141414',
            borderRadius: 8,
            padding: 10,
            overflow: 'hidden',
          }}
        >
          <Flex gap={6} align="center" style={{ fontWeight: 600, wordBreak: 'break-word' }}>
            {notice && <NotificationOutlined />}
            <span>{title || t('push.preview.titlePlaceholder')}</span>
          </Flex>
          {kind === 'image' && imageUrl && (
            <img
              src={imageUrl}
              alt=""
              style={{
                display: 'block',
                width: '100%',
                maxHeight: 120,
                objectFit: 'cover',
                marginTop: 8,
                borderRadius: 4,
              }}
            />
          )}
          {body && (
            <div style={{ marginTop: 6, fontSize: 12, whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>{body}</div>
          )}
          {kind === 'link' && link && (
            <div
              style={{
                marginTop: 8,
                fontSize: 12,
                color: '#1677ff',
                overflow: 'hidden',
                textOverflow: 'ellipsis',
                whiteSpace: 'nowrap',
              }}
            >
              <LinkOutlined /> {link}
            </div>
          )}
          {notice && noticeSeconds ? (
            <div style={{ marginTop: 6, fontSize: 11, opacity: 0.85 }}>
              {t('push.preview.noticeFor', { n: noticeSeconds })}
            </div>
          ) : null}
        </div>
        <Typography.Text style={{ color: 'rgba(255,255,255,0.45)', fontSize: 11, marginTop: 8, textAlign: 'center' }}>
          {t('push.preview.caption')}
        </Typography.Text>
      </div>
    </div>
  );
}
