import { theme } from 'antd';
import type { CSSProperties, ReactNode } from 'react';

/*
 * Headings and text of the public screens, drawn as antd's Typography draws them (same tokens). Typography
 * itself brings its editing, copying and ellipsis machinery, about 6 KiB gzip of the login page's first load
 * (issue 3: 180 KiB budget), for plain text.
 */

export function AuthTitle({ level, children, style }: { level: 2 | 3; children: ReactNode; style?: CSSProperties }) {
  const { token } = theme.useToken();
  const Heading = level === 2 ? 'h2' : 'h3';
  return (
    <Heading
      style={{
        marginBottom: '0.5em',
        color: token.colorTextHeading,
        fontWeight: token.fontWeightStrong,
        fontSize: level === 2 ? token.fontSizeHeading2 : token.fontSizeHeading3,
        lineHeight: level === 2 ? token.lineHeightHeading2 : token.lineHeightHeading3,
        wordBreak: 'break-word',
        ...style,
      }}
    >
      {children}
    </Heading>
  );
}

interface AuthTextProps {
  children: ReactNode;
  /** A paragraph (block, 1em below) instead of inline text. */
  paragraph?: boolean;
  secondary?: boolean;
  strong?: boolean;
  style?: CSSProperties;
}

export function AuthText({ children, paragraph = false, secondary = false, strong = false, style }: AuthTextProps) {
  const { token } = theme.useToken();
  const Element = paragraph ? 'p' : 'span';
  return (
    <Element
      style={{
        color: secondary ? token.colorTextDescription : token.colorText,
        lineHeight: token.lineHeight,
        wordBreak: 'break-word',
        ...(paragraph && { marginBottom: '1em' }),
        ...(strong && { fontWeight: 'bolder' }),
        ...style,
      }}
    >
      {children}
    </Element>
  );
}
