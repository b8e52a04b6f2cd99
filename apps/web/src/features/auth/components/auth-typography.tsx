import type { CSSProperties, ReactNode } from 'react';
import './auth.css';

/* Headings and text of the public screens, drawn as antd's Typography draws them, without antd (the sign-in
   page's first load carries none of it: issue 3's budget). */

export function AuthTitle({ level, children, style }: { level: 2 | 3; children: ReactNode; style?: CSSProperties }) {
  const Heading = level === 2 ? 'h2' : 'h3';
  return (
    <Heading className={`auth-title auth-title-${level}`} style={style}>
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
  const Element = paragraph ? 'p' : 'span';
  return (
    <Element
      className={['auth-text', secondary && 'is-secondary', strong && 'is-strong'].filter(Boolean).join(' ')}
      style={style}
    >
      {children}
    </Element>
  );
}
