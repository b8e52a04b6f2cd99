import { ApiOutlined, DashboardOutlined, SignalFilled } from '@ant-design/icons';
import { Flex, Grid, theme } from 'antd';
import type { CSSProperties, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { AuthText, AuthTitle } from './auth-typography';
import { BrandIllustration } from './brand-illustration';
import { BrandMark } from './brand-mark';
import { LanguageToggle } from './language-toggle';

/**
 * Public screens' frame: a brand panel with the illustration on the left (from lg up) and the form on the
 * right. Below lg only the form column remains, with the mark above it, down to 375 px wide.
 */
export function AuthSplitLayout({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const screens = Grid.useBreakpoint();
  const wide = !!screens.lg;
  const year = new Date().getFullYear();

  const features = [
    { icon: <DashboardOutlined />, text: t('auth.brand.features.devices') },
    { icon: <SignalFilled />, text: t('auth.brand.features.traffic') },
    { icon: <ApiOutlined />, text: t('auth.brand.features.integration') },
  ];

  return (
    <Flex style={{ minHeight: '100vh', background: token.colorBgLayout }}>
      {wide && (
        <Flex
          vertical
          justify="space-between"
          style={{
            flex: '0 0 46%',
            maxWidth: 720,
            padding: '40px 56px',
            color: token.colorTextLightSolid,
            background: `linear-gradient(150deg, ${token.colorPrimary} 0%, ${token.colorPrimaryActive} 100%)`,
            position: 'relative',
            overflow: 'hidden',
          }}
        >
          <BrandMark inverse />
          <div>
            <BrandIllustration
              accent={token.colorPrimary}
              ok={token.colorSuccess}
              style={{ maxWidth: 460, display: 'block', margin: '24px auto 32px', color: token.colorTextLightSolid }}
            />
            <AuthTitle level={2} style={{ color: token.colorTextLightSolid, marginTop: 0 }}>
              {t('auth.brand.slogan')}
            </AuthTitle>
            <Flex vertical gap={12} style={{ marginTop: 16 }}>
              {features.map((f) => (
                <Flex key={f.text} align="center" gap={12} style={{ fontSize: token.fontSizeLG, opacity: 0.92 }}>
                  <span
                    style={{
                      display: 'inline-flex',
                      width: 32,
                      height: 32,
                      flex: '0 0 32px',
                      alignItems: 'center',
                      justifyContent: 'center',
                      borderRadius: token.borderRadius,
                      background: 'rgba(255, 255, 255, 0.16)',
                    }}
                  >
                    {f.icon}
                  </span>
                  <span>{f.text}</span>
                </Flex>
              ))}
            </Flex>
          </div>
          <AuthText style={{ color: token.colorTextLightSolid, opacity: 0.7 }}>{t('auth.brand.copyright', { year })}</AuthText>
          {/* soft rings behind the picture */}
          <span aria-hidden style={ring(420, -140, -120)} />
          <span aria-hidden style={ring(300, undefined, undefined, -90, -80)} />
        </Flex>
      )}

      <Flex vertical style={{ flex: 1, minWidth: 0 }}>
        <Flex justify={wide ? 'flex-end' : 'space-between'} align="center" style={{ padding: wide ? '24px 32px' : '16px' }}>
          {!wide && <BrandMark size={32} />}
          <LanguageToggle />
        </Flex>
        <Flex flex={1} align="center" justify="center" style={{ padding: wide ? '24px 48px 48px' : '8px 16px 32px' }}>
          <div style={{ width: '100%', maxWidth: 440 }}>{children}</div>
        </Flex>
        {!wide && (
          <AuthText secondary style={{ textAlign: 'center', padding: '0 16px 24px', fontSize: token.fontSizeSM }}>
            {t('auth.brand.copyright', { year })}
          </AuthText>
        )}
      </Flex>
    </Flex>
  );
}

function ring(size: number, top?: number, right?: number, bottom?: number, left?: number): CSSProperties {
  return {
    position: 'absolute',
    width: size,
    height: size,
    top,
    right,
    bottom,
    left,
    borderRadius: '50%',
    border: '1px solid rgba(255, 255, 255, 0.14)',
    pointerEvents: 'none',
  };
}
