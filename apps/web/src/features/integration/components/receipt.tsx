import { theme } from 'antd';
import type { CSSProperties } from 'react';

interface ReceiptProps {
  lines: string[];
  /** Columns of the paper: the box is this many characters wide. */
  columns: number;
  style?: CSSProperties;
}

/** The rendered preview lines in a paper-like monospaced box, as wide as the paper's columns. */
export function Receipt({ lines, columns, style }: ReceiptProps) {
  const { token } = theme.useToken();
  return (
    <div style={{ overflowX: 'auto', maxWidth: '100%', ...style }}>
      <pre
        data-testid="receipt"
        style={{
          margin: '0 auto',
          // the paper's columns inside the padding and the border; a placeholder longer than the paper ([QR …]) wraps
          boxSizing: 'border-box',
          width: `calc(${columns}ch + 34px)`,
          padding: '16px',
          fontFamily: token.fontFamilyCode,
          fontSize: 13,
          lineHeight: 1.45,
          whiteSpace: 'pre-wrap',
          overflowWrap: 'anywhere',
          color: token.colorText,
          background: token.colorBgContainer,
          border: `1px dashed ${token.colorBorder}`,
          borderRadius: token.borderRadiusSM,
          boxShadow: token.boxShadowTertiary,
        }}
      >
        {lines.length ? lines.join('\n') : ' '}
      </pre>
    </div>
  );
}
