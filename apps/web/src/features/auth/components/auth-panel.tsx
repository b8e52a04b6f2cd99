import { theme } from 'antd';
import type { CSSProperties, ReactNode } from 'react';

/**
 * The surface the sign-in and registration forms sit on: what a borderless antd Card draws, without Card
 * itself, whose tabs, skeleton and menu code would otherwise ride along on the console's first load.
 */
export function AuthPanel({ children, padding, style }: { children: ReactNode; padding: CSSProperties['padding']; style?: CSSProperties }) {
  const { token } = theme.useToken();
  return (
    <div
      style={{
        padding,
        background: token.colorBgContainer,
        borderRadius: token.borderRadiusLG,
        boxShadow: token.boxShadowTertiary,
        color: token.colorText,
        ...style,
      }}
    >
      {children}
    </div>
  );
}
