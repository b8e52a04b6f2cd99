import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet from 'helmet';

/** The CSP source of every inline `<script>` of a page (`'sha256-…'`): each may run, and nothing else inline. */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    if (/\bsrc\s*=/i.test(m[1]) || !m[2].trim()) continue;
    hashes.push(`'sha256-${createHash('sha256').update(m[2], 'utf8').digest('base64')}'`);
  }
  return [...new Set(hashes)];
}

/**
 * The origin of a plain-http map tile URL (MAP_TILE_URL, issue 16; `{s}` stands for any subdomain): https tiles
 * are allowed by `https:` already.
 */
export function httpTileOrigin(url: string | undefined): string[] {
  if (!url || !/^http:\/\//i.test(url)) return [];
  const m = /^http:\/\/([^/?#]+)/i.exec(url);
  if (!m) return [];
  const [host, ...port] = m[1].toLowerCase().split(':');
  const labels = host.split('.');
  const templated = (l: string) => /\{[a-z]+\}/.test(l);
  // CSP wildcards stand only for the leftmost label ("*.example.com"): a placeholder elsewhere allows http:
  if (labels.slice(1).some(templated)) return ['http:'];
  if (templated(labels[0])) labels[0] = '*';
  return [`http://${labels.join('.')}${port.length ? `:${port.join(':')}` : ''}`];
}

/**
 * The Content-Security-Policy of every answer: the console (a Vite-built SPA served from `webDist`), the Swagger
 * UI at /apiAdmin/docs and the JSON calls all work under it.
 * - scripts: the server's own files, and the inline scripts of the console's index.html by their hash (read at
 *   start; the old-browser notice), nothing else inline, no eval;
 * - styles: the server's own and inline: antd's CSS-in-JS writes <style> elements, Swagger UI and the old-browser
 *   notice write style attributes;
 * - images: the server's own (avatars and identity images are signed same-origin links), data: (the captcha,
 *   icons) and blob: (a picked image's preview), and https: for pictures in notices (the notice sanitizer lets
 *   http(s) images through);
 * - connections (fetch, server-sent events): the server's own; workers: own and blob:;
 * - no plugins, no <base> elsewhere, forms post home, the console is framed by its own pages only.
 * There is no upgrade-insecure-requests: a server on plain HTTP (a LAN) would have its own assets asked over
 * HTTPS and load nothing.
 */
export function contentSecurityPolicy(
  webDist: string | undefined,
  mapTileUrl?: string,
  storageOrigin?: string,
): Record<string, string[]> {
  // objects in S3 (issue 17): signed links redirect to presigned links on the bucket's origin
  const bucket = storageOrigin ? [storageOrigin] : [];
  const index = webDist ? path.join(webDist, 'index.html') : undefined;
  const scriptHashes = index && fs.existsSync(index) ? inlineScriptHashes(fs.readFileSync(index, 'utf8')) : [];
  return {
    'default-src': ["'self'"],
    'base-uri': ["'self'"],
    'script-src': ["'self'", ...scriptHashes],
    'script-src-attr': ["'none'"],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:', 'blob:', 'https:', ...httpTileOrigin(mapTileUrl), ...bucket],
    'font-src': ["'self'", 'data:'],
    'connect-src': ["'self'", ...bucket],
    ...(bucket.length ? { 'media-src': ["'self'", ...bucket] } : {}),
    'worker-src': ["'self'", 'blob:'],
    'manifest-src': ["'self'"],
    'object-src': ["'none'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'self'"],
  };
}

/**
 * The standard security headers on every answer (helmet), with the policy above. The middleware is built once
 * (`@fastify/helmet` built it again on every request: about 5 % of the server's CPU on a print submit) and sets
 * its precomputed headers on each answer before any route runs.
 */
export const securityHeaders = fp(
  async (app: FastifyInstance, opts: { webDist: string | undefined; mapTileUrl?: string; storageOrigin?: string }) => {
    const setHeaders = helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: contentSecurityPolicy(opts.webDist, opts.mapTileUrl, opts.storageOrigin),
      },
      // the default (a year, subdomains too) once the console is reached over HTTPS; browsers ignore it over HTTP
      strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
    });
    app.addHook('onRequest', (req, reply, done) =>
      setHeaders(req.raw, reply.raw, (err?: unknown) => done(err as Error)),
    );
  },
  { name: 'cpc-security-headers' },
);
