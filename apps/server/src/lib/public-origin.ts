import type { AddressInfo } from 'node:net';

/**
 * The origin every absolute URL the server makes starts with (cashier and payment-notify URLs, the social-login
 * redirect URI, mail links, links handed to devices): PUBLIC_URL without its trailing slash; without it (not
 * allowed in production) the address this node listens on, or before it listens the configured HOST:PORT, with
 * a wildcard address read as this machine's loopback. Never anything a request says (Host, X-Forwarded-Host):
 * a caller could otherwise have the server send a signed payment notification, or a user, to an address of
 * its choosing.
 */
export function publicOrigin(
  config: { PUBLIC_URL?: string; HOST: string; PORT: number },
  listening?: AddressInfo | string | null,
): string {
  if (config.PUBLIC_URL) return config.PUBLIC_URL.replace(/\/+$/, '');
  const bound = listening && typeof listening === 'object' ? listening : undefined;
  const address = bound?.address ?? config.HOST;
  const host = ['0.0.0.0', '::', ''].includes(address) ? '127.0.0.1' : address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${bound?.port ?? config.PORT}`;
}
