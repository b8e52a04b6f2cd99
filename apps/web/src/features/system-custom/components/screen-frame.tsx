import { theme } from 'antd';
import type { CSSProperties, ReactNode } from 'react';

/** A terminal's screen drawn small (portrait, 9:16) for the previews: wallpaper, desktop, boot animation. */
export function ScreenFrame({
  children,
  background,
  testId,
}: {
  children?: ReactNode;
  background?: CSSProperties;
  testId?: string;
}) {
  const { token } = theme.useToken();
  return (
    <div
      data-testid={testId}
      style={{
        width: 'min(220px, 100%)',
        aspectRatio: '9 / 16',
        borderRadius: 18,
        border: `6px solid ${token.colorTextSecondary}`,
        background: token.colorFillSecondary,
        overflow: 'hidden',
        position: 'relative',
        flex: 'none',
        ...background,
      }}
    >
      {children}
    </div>
  );
}
