import { LockOutlined, LogoutOutlined, UnlockOutlined, UserOutlined } from '@ant-design/icons';
import { Avatar, Button, Flex, Form, Input, Typography } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import { useLanguage } from '../../lib/i18n';
import { RequestError } from '../../lib/request';
import { onSessionReset, useSession } from '../../lib/session';
import { useLayoutSettings } from '../layout-settings';
import { checkPassword } from './lock-api';
import { localeOf } from './intl-locale';
import { useNow } from '@/lib/use-now';
import { useSignOut } from './sign-out';
import { useFormLanguage } from '../../lib/use-form-language';

/** SPEC §4: a right password unlocks after this pause. */
export const UNLOCK_DELAY = 500;
/** Above every popup, drawer and modal of antd; below its messages. */
const LOCK_Z_INDEX = 1500;

// the lock belongs to a session: whoever logs in next (after a logout or an expiry) starts unlocked
onSessionReset(() => useLayoutSettings.getState().setLock(false));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function LockPanel() {
  const { t } = useTranslation();
  const { language } = useLanguage();
  const now = new Date(useNow());
  const username = useSession((s) => s.username);
  const avatar = useSession((s) => s.userInfo?.avatar);
  const setLock = useLayoutSettings((s) => s.setLock);
  const signOut = useSignOut();
  const [form] = Form.useForm<{ password: string }>();
  useFormLanguage(form);
  const [busy, setBusy] = useState(false);

  const [time, date] = useMemo(() => {
    const locale = localeOf(language);
    return [
      new Intl.DateTimeFormat(locale, { timeStyle: 'medium' }),
      new Intl.DateTimeFormat(locale, { dateStyle: 'full' }),
    ];
  }, [language]);

  const unlock = async ({ password }: { password: string }) => {
    setBusy(true);
    try {
      await checkPassword(password);
    } catch (error) {
      setBusy(false);
      // 400 is the server's "wrong password"; anything else (no network, …) says what it is
      const wrong = error instanceof RequestError && Number(error.code) === 400;
      // the server signs the session out after a few wrong passwords: the last ones say so
      const left = wrong ? Number((error.data as { attemptsLeft?: number } | null)?.attemptsLeft) : NaN;
      const errors = wrong
        ? [t('layout.header.lock.wrong'), ...(left <= 2 ? [t('layout.header.lock.attemptsLeft', { count: left })] : [])]
        : [(error as Error).message];
      form.setFields([{ name: 'password', value: '', errors }]);
      return;
    }
    await sleep(UNLOCK_DELAY);
    setLock(false);
  };

  return (
    <div
      role="dialog"
      aria-modal="true"
      aria-label={t('layout.header.lock.title')}
      data-testid="lock-screen"
      style={{
        position: 'fixed',
        inset: 0,
        zIndex: LOCK_Z_INDEX,
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'center',
        justifyContent: 'center',
        gap: 32,
        padding: 16,
        overflowY: 'auto',
        color: '#fff',
        background: 'radial-gradient(circle at 30% 20%, #2b5876 0%, #1b2a41 45%, #0b1220 100%)',
      }}
    >
      <Flex vertical align="center" gap={4}>
        <time
          dateTime={now.toISOString()}
          data-testid="lock-time"
          style={{
            fontSize: 'clamp(40px, 12vw, 72px)',
            fontWeight: 200,
            lineHeight: 1.1,
            fontVariantNumeric: 'tabular-nums',
          }}
        >
          {time.format(now)}
        </time>
        <span style={{ fontSize: 16, opacity: 0.8 }}>{date.format(now)}</span>
      </Flex>

      <Flex
        vertical
        align="center"
        gap={16}
        style={{
          width: 'min(360px, 100%)',
          padding: '28px 24px 20px',
          borderRadius: 16,
          background: 'rgba(255, 255, 255, 0.08)',
          border: '1px solid rgba(255, 255, 255, 0.16)',
          backdropFilter: 'blur(8px)',
        }}
      >
        <Avatar size={72} src={avatar || undefined} icon={<UserOutlined />} />
        <Flex vertical align="center" gap={2}>
          <Typography.Text strong style={{ color: '#fff', fontSize: 18 }} data-testid="lock-user">
            {username}
          </Typography.Text>
          <span style={{ opacity: 0.75 }}>
            <LockOutlined /> {t('layout.header.lock.title')}
          </span>
        </Flex>
        <Form form={form} onFinish={unlock} style={{ width: '100%' }} autoComplete="off">
          {/* lets a password manager know whose password this is */}
          <input type="text" name="username" autoComplete="username" value={username} readOnly hidden />
          <Form.Item
            name="password"
            rules={[{ required: true, message: t('layout.header.lock.required') }]}
            style={{ marginBottom: 12 }}
          >
            <Input.Password
              autoFocus
              size="large"
              autoComplete="current-password"
              placeholder={t('layout.header.lock.placeholder')}
              aria-label={t('layout.header.lock.placeholder')}
              disabled={busy}
            />
          </Form.Item>
          <Button type="primary" htmlType="submit" size="large" block icon={<UnlockOutlined />} loading={busy}>
            {t('layout.header.lock.unlock')}
          </Button>
        </Form>
        <Button
          type="link"
          icon={<LogoutOutlined />}
          onClick={() => void signOut()}
          style={{ color: 'rgba(255, 255, 255, 0.85)' }}
        >
          {t('layout.header.lock.logout')}
        </Button>
      </Flex>
    </div>
  );
}

/**
 * The screen lock (SPEC §2, §4): covers every page, survives reloads (the flag is persisted) and opens
 * only with the user's own password, checked by the server. The page behind is made inert so the
 * keyboard cannot reach it either.
 */
export function LockScreen() {
  const lock = useLayoutSettings((s) => s.lock);

  useEffect(() => {
    if (!lock) return;
    const root = document.getElementById('root');
    root?.setAttribute('inert', '');
    root?.setAttribute('aria-hidden', 'true');
    const overflow = document.body.style.overflow;
    document.body.style.overflow = 'hidden';
    return () => {
      root?.removeAttribute('inert');
      root?.removeAttribute('aria-hidden');
      document.body.style.overflow = overflow;
    };
  }, [lock]);

  if (!lock) return null;
  return createPortal(<LockPanel />, document.body);
}
