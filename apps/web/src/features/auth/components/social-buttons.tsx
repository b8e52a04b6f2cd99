import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { SocialProvider } from '@cpc/contracts';
import { LiteButton } from '@/components/lite/button';
import { getSocialProviders, rememberRedirect, startSocialLogin } from '../api/social';
import { AuthText } from './auth-typography';

/**
 * One button per social-login provider the server has configured (none: nothing at all). A click starts the
 * flow and leaves for the provider; the intended page is kept for the return to /callback.
 */
export function SocialButtons() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const [providers, setProviders] = useState<SocialProvider[]>([]);
  const [pending, setPending] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    getSocialProviders()
      .then((list) => live && setProviders(Array.isArray(list) ? list : []))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, []);

  if (!providers.length) return null;

  const go = async (provider: string) => {
    setPending(provider);
    try {
      const { url } = await startSocialLogin(provider);
      rememberRedirect(params.get('redirect'));
      window.location.assign(url);
    } catch {
      // the request layer has said why
      setPending(null);
    }
  };

  return (
    <div className="auth-social" style={{ marginTop: 20 }}>
      <div style={{ textAlign: 'center', marginBottom: 12 }}>
        <AuthText secondary>{t('auth.social.or')}</AuthText>
      </div>
      <div style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
        {providers.map((p) => (
          <LiteButton
            key={p.id}
            type="button"
            block
            loading={pending === p.id}
            data-provider={p.id}
            onClick={() => void go(p.id)}
          >
            {t('auth.social.with', { name: p.name })}
          </LiteButton>
        ))}
      </div>
    </div>
  );
}
