import { useCallback, useEffect, useRef, useState } from 'react';
import type { CaptchaResult } from '@cpc/contracts';
import { getCaptcha } from '../api/captcha';

interface CaptchaState {
  data: CaptchaResult | undefined;
  loading: boolean;
  failed: boolean;
}

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
