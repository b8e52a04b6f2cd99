import PrinterOutlined from '@ant-design/icons-svg/es/asn/PrinterOutlined';
import { useTranslation } from 'react-i18next';
import { LiteIcon } from '@/components/lite/icon';
import './auth.css';

/** The product's mark: a printer in a rounded tile, with the title beside it. */
export function BrandMark({ inverse = false, size = 40 }: { inverse?: boolean; size?: number }) {
  const { t } = useTranslation();
  return (
    <span className={inverse ? 'auth-mark is-inverse' : 'auth-mark'}>
      <span className="auth-mark-tile" aria-hidden style={{ width: size, height: size, fontSize: size * 0.55 }}>
        <LiteIcon icon={PrinterOutlined} />
      </span>
      <span className="auth-mark-title" style={{ fontSize: size * 0.5 }}>
        {t('auth.brand.title')}
      </span>
    </span>
  );
}
