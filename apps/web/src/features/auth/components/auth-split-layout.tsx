import ApiOutlined from '@ant-design/icons-svg/es/asn/ApiOutlined';
import DashboardOutlined from '@ant-design/icons-svg/es/asn/DashboardOutlined';
import SignalFilled from '@ant-design/icons-svg/es/asn/SignalFilled';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { LiteIcon } from '@/components/lite/icon';
import { shellColors } from '@/config/theme';
import { useLayoutSettings } from '@/layout/layout-settings';
import { BrandIllustration } from './brand-illustration';
import { BrandMark } from './brand-mark';
import { LanguageToggle } from './language-toggle';
import '@/components/lite/lite.css';
import './auth.css';

/** antd's colorSuccess: the printer's ready light in the picture. */
const READY = '#52c41a';

/**
 * Public screens' frame: a brand panel with the illustration on the left (from antd's lg breakpoint, 992 px,
 * up) and the form on the right. Below it only the form column remains, with the mark above it, down to
 * 375 px wide. Plain elements and CSS: the sign-in page's first load carries no antd.
 */
export function AuthSplitLayout({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const themeName = useLayoutSettings((s) => s.themeName);
  const colorScheme = useLayoutSettings((s) => s.colorScheme);
  const { primary } = shellColors(themeName, colorScheme);
  const year = new Date().getFullYear();

  const features = [
    { icon: DashboardOutlined, text: t('auth.brand.features.devices') },
    { icon: SignalFilled, text: t('auth.brand.features.traffic') },
    { icon: ApiOutlined, text: t('auth.brand.features.integration') },
  ];

  return (
    <div className="lite auth-split">
      <aside className="auth-brand">
        <BrandMark inverse />
        <div>
          <BrandIllustration accent={primary} ok={READY} className="auth-brand-picture" />
          <h2 className="auth-brand-slogan">{t('auth.brand.slogan')}</h2>
          <ul className="auth-brand-features">
            {features.map((f) => (
              <li key={f.text}>
                <span className="auth-brand-feature-icon">
                  <LiteIcon icon={f.icon} />
                </span>
                <span>{f.text}</span>
              </li>
            ))}
          </ul>
        </div>
        <span className="auth-brand-copyright">{t('auth.brand.copyright', { year })}</span>
        {/* soft rings behind the picture */}
        <span aria-hidden className="auth-brand-ring" style={{ width: 420, height: 420, top: -140, right: -120 }} />
        <span aria-hidden className="auth-brand-ring" style={{ width: 300, height: 300, bottom: -90, left: -80 }} />
      </aside>

      <div className="auth-main">
        <div className="auth-topbar">
          <BrandMark size={32} />
          <LanguageToggle />
        </div>
        <main className="auth-body">
          <div className="auth-body-inner">{children}</div>
        </main>
        <div className="auth-footer">{t('auth.brand.copyright', { year })}</div>
      </div>
    </div>
  );
}
