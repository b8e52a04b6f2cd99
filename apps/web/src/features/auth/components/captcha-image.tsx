import ReloadOutlined from '@ant-design/icons-svg/es/asn/ReloadOutlined';
import { useTranslation } from 'react-i18next';
import type { CaptchaResult } from '@cpc/contracts';
import { LiteIcon } from '@/components/lite/icon';
import { captchaSrc } from '../api/captcha';
import './auth.css';

interface CaptchaImageProps {
  captcha: CaptchaResult | undefined;
  loading: boolean;
  failed: boolean;
  onRefresh: () => void;
  size?: 'middle' | 'large';
}

/** The graphic captcha beside its input: a click draws another one. */
export function CaptchaImage({ captcha, loading, failed, onRefresh, size = 'large' }: CaptchaImageProps) {
  const { t } = useTranslation();
  return (
    <button
      type="button"
      className={size === 'middle' ? 'auth-captcha-image is-middle' : 'auth-captcha-image'}
      onClick={onRefresh}
      aria-label={t('auth.captcha.refresh')}
      title={failed ? t('auth.captcha.loadFailed') : t('auth.captcha.refresh')}
    >
      {loading ? (
        <span className="lite-spin" aria-hidden />
      ) : captcha?.svg ? (
        <img src={captchaSrc(captcha.svg)} alt={t('auth.captcha.image')} draggable={false} />
      ) : (
        <LiteIcon icon={ReloadOutlined} />
      )}
    </button>
  );
}
