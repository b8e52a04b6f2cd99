import { useCallback, useEffect, useRef, useState } from 'react';
import type { CaptchaResult } from '@cpc/contracts';
import { getCaptcha } from '../api/captcha';

interface CaptchaState {
  data: CaptchaResult | undefined;
  loading: boolean;
  failed: boolean;
}

/** When to draw a new captcha: a tenth of its life (at most 30 s, at least 1 s) before it lapses. */
export const renewAfterMs = (expiresInS: number): number =>
  Math.max(500, expiresInS * 1000 - Math.min(30_000, Math.max(1000, expiresInS * 100)));

/**
 * A form's graphic captcha: drawn on mount and again on `refresh`. A captcha is single use, so nothing is
 * cached; only the answer to the newest request is kept, so the image on screen is the server's newest.
 * Plain state rather than a query cache: the sign-in page loads no TanStack Query (issue 3's first load).
 */
export function useCaptcha() {
  const [state, setState] = useState<CaptchaState>({ data: undefined, loading: true, failed: false });
  const latest = useRef(0);

  const refresh = useCallback(() => {
    const ticket = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    getCaptcha().then(
      (data) => ticket === latest.current && setState({ data, loading: false, failed: false }),
      () => ticket === latest.current && setState((s) => ({ data: s.data, loading: false, failed: true })),
    );
  }, []);

  useEffect(refresh, [refresh]);

  // an idle page draws a new captcha shortly before the one on screen lapses, so the first try does not fail
  const expiresIn = state.data?.enabled ? state.data.expiresIn : undefined;
  useEffect(() => {
    if (!expiresIn) return;
    const due = Date.now() + renewAfterMs(expiresIn);
    const timer = setTimeout(refresh, due - Date.now());
    // a background tab's timers are slowed down: coming back after the due time redraws at once
    const onVisible = () => document.visibilityState === 'visible' && Date.now() >= due && refresh();
    document.addEventListener('visibilitychange', onVisible);
    window.addEventListener('focus', onVisible);
    return () => {
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
      window.removeEventListener('focus', onVisible);
    };
  }, [state.data, expiresIn, refresh]);

  const enabled = state.data?.enabled ?? false;
  /** The captcha part of a request body, ready to spread in. */
  const payload = (typed: unknown): { captchaId?: string; captcha?: string } =>
    enabled && state.data ? { captchaId: state.data.captchaId, captcha: String(typed ?? '').trim() } : {};

  return {
    ...state,
    enabled,
    // shown while the first answer is on its way too, so the form does not jump when it says the captcha is on
    visible: enabled || (state.loading && !state.data) || state.failed,
    refresh,
    payload,
  };
}
