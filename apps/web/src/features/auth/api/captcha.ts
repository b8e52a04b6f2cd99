import type { CaptchaResult } from '@cpc/contracts';
import { request } from '@/lib/request';

export const getCaptcha = () => request<CaptchaResult>({ url: '/captcha', method: 'get', noToken: true });

/** The `src` of the captcha image: the SVG markup as a data URL. */
export const captchaSrc = (svg: string) => `data:image/svg+xml;utf8,${encodeURIComponent(svg)}`;
