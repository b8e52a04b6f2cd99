import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CaptchaResult } from '@cpc/contracts';
import { request } from '@/lib/request';

export const getCaptcha = () => request<CaptchaResult>({ url: '/captcha', method: 'get', noToken: true });

/** A captcha is single-use, so it is never cached across screens and is refetched on demand. */
export const captchaQueryOptions = (scope: string) =>
  queryOptions({
    queryKey: ['auth', 'captcha', scope],
    queryFn: getCaptcha,
    staleTime: Infinity,
    gcTime: 0,
    retry: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });

export const useCaptcha = (scope: string) => useQuery(captchaQueryOptions(scope));

/** The `src` of the captcha image: the SVG markup as a data URL. */
export const captchaSrc = (svg: string) => `data:image/svg+xml;utf8,${encodeURIComponent(svg)}`;
