import { PrinterOutlined } from '@ant-design/icons';
import { Flex, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { AuthText } from './auth-typography';

/** The product's mark: a printer in a rounded tile, with the title beside it. */
export function BrandMark({ inverse = false, size = 40 }: { inverse?: boolean; size?: number }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  return (
    <Flex align="center" gap={12}>
      <span
        aria-hidden
        style={{
          width: size,
          height: size,
          borderRadius: token.borderRadiusLG,
          display: 'inline-flex',
          alignItems: 'center',
          justifyContent: 'center',
          fontSize: size * 0.55,
          color: inverse ? token.colorPrimary : token.colorTextLightSolid,
          background: inverse ? token.colorTextLightSolid : token.colorPrimary,
          boxShadow: token.boxShadowTertiary,
        }}
      >
        <PrinterOutlined />
      </span>
      <AuthText
        strong
        style={{ fontSize: size * 0.5, color: inverse ? token.colorTextLightSolid : token.colorText, letterSpacing: 0.5 }}
      >
        {t('auth.brand.title')}
      </AuthText>
    </Flex>
  );
}
