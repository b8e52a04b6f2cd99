import { CheckOutlined, CopyOutlined } from '@ant-design/icons';
import { Button, Tooltip, theme } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

/** Copies text; falls back to a hidden textarea where the clipboard API is not allowed (plain http). */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    const done = document.execCommand('copy');
    area.remove();
    return done;
  }
}

/** A copy button that says for a moment that it copied. */
export function CopyButton({ text, label, testId }: { text: string; label?: string; testId?: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(timer);
  }, [copied]);
  const title = copied ? t('integration.copied') : (label ?? t('integration.copy'));
  return (
    <Tooltip title={title}>
      <Button
        size="small"
        icon={copied ? <CheckOutlined /> : <CopyOutlined />}
        aria-label={label ?? t('integration.copy')}
        data-testid={testId}
        onClick={() => void copyText(text).then(setCopied)}
      >
        {label}
      </Button>
    </Tooltip>
  );
}

/** Monospaced code with a copy button in its corner. */
export function CodeBlock({ code, testId, maxHeight }: { code: string; testId?: string; maxHeight?: number }) {
  const { token } = theme.useToken();
  return (
    <div style={{ position: 'relative' }}>
      <pre
        data-testid={testId}
        style={{
          margin: 0,
          padding: '12px 44px 12px 12px',
          maxHeight,
          overflow: 'auto',
          fontFamily: token.fontFamilyCode,
          fontSize: 12,
          lineHeight: 1.5,
          color: token.colorText,
          background: token.colorFillTertiary,
          borderRadius: token.borderRadius,
          whiteSpace: 'pre',
        }}
      >
        {code}
      </pre>
      <div style={{ position: 'absolute', top: 6, right: 6 }}>
        <CopyButton text={code} testId={testId ? `${testId}-copy` : undefined} />
      </div>
    </div>
  );
}
