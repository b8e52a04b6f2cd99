import type { CSSProperties, ReactNode } from 'react';
import '@/components/lite/lite.css';
import './auth.css';

/** The surface the sign-in and registration forms sit on: what a borderless antd Card draws, without antd. */
export function AuthPanel({
  children,
  padding,
  className,
  style,
}: {
  children: ReactNode;
  padding?: CSSProperties['padding'];
  className?: string;
  style?: CSSProperties;
}) {
  return (
    <div className={['lite', 'auth-panel', className].filter(Boolean).join(' ')} style={{ padding, ...style }}>
      {children}
    </div>
  );
}
