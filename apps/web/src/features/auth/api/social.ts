import type { LoginResult, SocialLinkBody, SocialLoginResult, SocialProvider } from '@cpc/contracts';
import { request } from '@/lib/request';

/** Social login (OpenID Connect): the configured providers, starting and finishing a flow, linking with a password. */

/** The identity providers configured on the server; none when the call fails (the page simply shows no buttons). */
export const getSocialProviders = () =>
  request<SocialProvider[]>({ url: '/socialLogin/providers', method: 'get', noToken: true, quiet: true });

export const startSocialLogin = (provider: string) =>
  request<{ url: string }>({ url: '/socialLogin', method: 'post', data: { provider }, noToken: true });

/** The callback's query, as the identity provider sent it. */
export const finishSocialLogin = (query: Record<string, string>) =>
  request<SocialLoginResult>({ url: '/socialLogin', method: 'post', data: query, noToken: true });

export const linkWithPassword = (body: SocialLinkBody) =>
  request<LoginResult>({ url: '/socialLogin/link', method: 'post', data: body, noToken: true });

const REDIRECT_KEY = 'cpc.social.redirect';
const TICKET_KEY = 'cpc.social.ticket';

/** Where to land after the flow (the login page's `?redirect=`), kept across the trip to the provider. */
export const rememberRedirect = (path: string | null) => {
  if (path) sessionStorage.setItem(REDIRECT_KEY, path);
  else sessionStorage.removeItem(REDIRECT_KEY);
};
export const takeRedirect = (): string | null => {
  const path = sessionStorage.getItem(REDIRECT_KEY);
  sessionStorage.removeItem(REDIRECT_KEY);
  return path;
};

/** A link ticket carried into registration: the new account gets the identity. */
export const rememberTicket = (ticket: string, provider: string) =>
  sessionStorage.setItem(TICKET_KEY, JSON.stringify({ ticket, provider }));
export const pendingTicket = (): { ticket: string; provider: string } | null => {
  try {
    const v = JSON.parse(sessionStorage.getItem(TICKET_KEY) ?? 'null') as { ticket?: unknown; provider?: unknown };
    return v && typeof v.ticket === 'string' && typeof v.provider === 'string'
      ? { ticket: v.ticket, provider: v.provider }
      : null;
  } catch {
    return null;
  }
};
export const forgetTicket = () => sessionStorage.removeItem(TICKET_KEY);
