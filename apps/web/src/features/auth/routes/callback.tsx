import { Alert, Button, Divider, Flex, Result, Spin, Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { SocialLinkOffer } from '@cpc/contracts';
import { TOKEN_NAME } from '@cpc/contracts/constants';
import { LOGIN_PATH } from '@/config/settings';
import { messageApi, prepareMessages } from '@/lib/feedback';
import { useSession } from '@/lib/session';
import { finishSocialLogin, rememberTicket, takeRedirect } from '../api/social';
import { AuthPanel } from '../components/auth-panel';
import { AuthSplitLayout } from '../components/auth-split-layout';
import { LoginForm } from '../components/login-form';
import { safeRedirect } from '../utils/redirect';

type View =
  | { kind: 'pending' }
  | { kind: 'link'; offer: SocialLinkOffer }
  /** `noToken`: said at render time, so a switch of language says it again; else the server's reason as said. */
  | { kind: 'failed'; noToken?: boolean; reason?: string };

/** Where a signed-in user's "link another" lands after the provider. */
const PERSON_PATH = '/person/info';

/**
 * /callback (SPEC §2: whitelisted, no screen of its own): the identity provider's redirect arrives here with
 * its query. A spinner while the server finishes the flow; then signed in (as the password login does), the
 * identity linked (a signed-in user's "link another"), or — an identity no account has — the choice to link
 * it to an account with its password once, or to register.
 */
export default function CallbackPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const applyLogin = useSession((s) => s.applyLogin);
  const [view, setView] = useState<View>({ kind: 'pending' });
  const [redirect] = useState(() => takeRedirect());
  const started = useRef(false);

  useEffect(() => {
    // the callback's state is good for one try: never post it twice (StrictMode runs effects twice)
    if (started.current) return;
    started.current = true;
    prepareMessages();
    finishSocialLogin(Object.fromEntries(params))
      .then((result) => {
        if (result && 'link' in result) {
          setView({ kind: 'link', offer: result.link });
        } else if (result && 'linked' in result) {
          messageApi().success(t('auth.social.linked', { name: result.linked.providerName }));
          void navigate(PERSON_PATH, { replace: true });
        } else if (result && TOKEN_NAME in result && result[TOKEN_NAME]) {
          applyLogin(result);
          messageApi().success(t('auth.login.success'));
          void navigate(safeRedirect(redirect), { replace: true });
        } else {
          // SPEC §8: social login without a token
          messageApi().error(t('auth.social.noToken'));
          setView({ kind: 'failed', noToken: true });
        }
      })
      .catch((err: unknown) => {
        // the request layer has already shown why
        setView({ kind: 'failed', reason: err instanceof Error ? err.message : undefined });
      });
  }, [params, navigate, applyLogin, redirect, t]);

  if (view.kind === 'pending') {
    return (
      <Flex align="center" justify="center" style={{ minHeight: '100vh' }}>
        <Spin size="large" tip={t('auth.social.finishing')}>
          <div style={{ width: 160, height: 80 }} />
        </Spin>
      </Flex>
    );
  }

  if (view.kind === 'failed') {
    return (
      <Flex align="center" justify="center" style={{ minHeight: '100vh', padding: 16 }}>
        <Result
          status="warning"
          title={t('auth.social.failed')}
          subTitle={view.noToken ? t('auth.social.noToken') : view.reason}
          extra={
            <Button type="primary" onClick={() => void navigate(LOGIN_PATH, { replace: true })}>
              {t('auth.social.backToLogin')}
            </Button>
          }
        />
      </Flex>
    );
  }

  const { offer } = view;
  const who = offer.name ?? offer.email ?? '';
  return (
    <AuthSplitLayout>
      <AuthPanel padding="clamp(24px, 6vw, 32px) clamp(20px, 5vw, 32px) 24px">
        <Typography.Title level={3} style={{ marginTop: 0, marginBottom: 4 }}>
          {t('auth.social.linkTitle', { name: offer.providerName })}
        </Typography.Title>
        <Typography.Paragraph type="secondary" style={{ marginBottom: 16 }}>
          {t('auth.social.linkIntro', { name: offer.providerName })}
        </Typography.Paragraph>
        {who && (
          <Alert
            type="info"
            showIcon
            style={{ marginBottom: 20 }}
            message={t('auth.social.identity', { who, email: offer.email && offer.name ? offer.email : '' }).trim()}
          />
        )}
        <LoginForm ticket={offer.ticket} redirectTo={redirect} />
        <Divider plain>{t('auth.social.noAccount')}</Divider>
        <Button
          block
          size="large"
          onClick={() => {
            rememberTicket(offer.ticket, offer.providerName);
            void navigate('/register');
          }}
        >
          {t('auth.social.register')}
        </Button>
        <Flex justify="center" style={{ marginTop: 16 }}>
          <Link className="auth-link" to={LOGIN_PATH} replace>
            {t('auth.social.backToLogin')}
          </Link>
        </Flex>
      </AuthPanel>
    </AuthSplitLayout>
  );
}
