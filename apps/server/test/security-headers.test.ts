import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineScriptHashes } from '../src/plugins/security-headers.ts';
import { createHarness, nextMobile, type Harness } from './harness.ts';

/** The standard security headers (helmet) and a Content-Security-Policy the console and Swagger UI work under. */

const INLINE = '\n      (function () { window.__early = 1; })();\n    ';
const sha = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;

let h: Harness;
let dist: string;
beforeAll(async () => {
  dist = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-dist-'));
  fs.mkdirSync(path.join(dist, 'assets'));
  fs.writeFileSync(
    path.join(dist, 'index.html'),
    `<!doctype html><html><head><script type="module" crossorigin src="/assets/app.js"></script></head><body><div id="root"></div><script>${INLINE}</script></body></html>`,
  );
  fs.writeFileSync(path.join(dist, 'assets', 'app.js'), 'console.log(1)');
  h = await createHarness({ WEB_DIST: dist });
});
afterAll(async () => {
  await h.close();
  fs.rmSync(dist, { recursive: true, force: true });
});

/** The directives of a policy, by name. */
const directives = (csp: string) =>
  Object.fromEntries(
    csp
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => {
        const [name, ...values] = d.split(/\s+/);
        return [name, values];
      }),
  );

function expectSecurityHeaders(headers: Record<string, unknown>) {
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['x-frame-options']).toBe('SAMEORIGIN');
  expect(headers['strict-transport-security']).toMatch(/^max-age=\d+/);
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(headers['cross-origin-opener-policy']).toBe('same-origin');
  expect(headers['cross-origin-resource-policy']).toBe('same-origin');
  expect(headers['x-dns-prefetch-control']).toBe('off');
  expect(headers['x-permitted-cross-domain-policies']).toBe('none');
  expect(headers['x-powered-by']).toBeUndefined();
  const csp = directives(String(headers['content-security-policy']));
  expect(csp['default-src']).toEqual(["'self'"]);
  expect(csp['object-src']).toEqual(["'none'"]);
  expect(csp['frame-ancestors']).toEqual(["'self'"]);
  expect(csp['connect-src']).toEqual(["'self'"]);
  // scripts: own files and hashed inline scripts only; no eval, no inline script of any other kind
  expect(csp['script-src'][0]).toBe("'self'");
  expect(csp['script-src'].slice(1).every((s: string) => /^'sha256-[A-Za-z0-9+/=]+'$/.test(s))).toBe(true);
  expect(csp['script-src-attr']).toEqual(["'none'"]);
  // antd's CSS-in-JS writes <style> elements
  expect(csp['style-src']).toEqual(["'self'", "'unsafe-inline'"]);
  expect(csp['img-src']).toEqual(expect.arrayContaining(["'self'", 'data:', 'blob:']));
  // a server on plain HTTP must still load its own assets
  expect(csp['upgrade-insecure-requests']).toBeUndefined();
  return csp;
}

describe('security headers', () => {
  it("are on the console's page, whose inline script is allowed by its hash", async () => {
    const res = await h.call({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    const csp = expectSecurityHeaders(res.headers);
    expect(csp['script-src']).toEqual(["'self'", sha(INLINE)]);
    expectSecurityHeaders((await h.call({ method: 'GET', url: '/assets/app.js' })).headers);
  });

  it('are on API answers, 404s, errors and 429s', async () => {
    expectSecurityHeaders((await h.call({ method: 'GET', url: '/apiAdmin/publicKey' })).headers);
    expectSecurityHeaders((await h.call({ method: 'GET', url: '/apiAdmin/no-such-call' })).headers);
    expectSecurityHeaders((await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/userInfo' })).headers);
    expectSecurityHeaders(
      (await h.call({ method: 'POST', url: '/apiAdmin/user/v1/login', payload: { username: 'x' } })).headers,
    );
    expectSecurityHeaders((await h.call({ method: 'GET', url: '/open/v1/devices' })).headers);
    const sms = {
      method: 'POST' as const,
      url: '/apiAdmin/sms/send',
      payload: { mobile: nextMobile(), purpose: 'register' },
    };
    expect((await h.call(sms)).statusCode).toBe(200);
    const again = await h.call(sms);
    expect(again.statusCode).toBe(429);
    expectSecurityHeaders(again.headers);
  });

  it('are on the Swagger UI, which loads no inline script', async () => {
    const page = await h.call({ method: 'GET', url: '/apiAdmin/docs/' });
    expect(page.statusCode).toBe(200);
    expectSecurityHeaders(page.headers);
    expect(inlineScriptHashes(page.body)).toEqual([]);
    expect((await h.call({ method: 'GET', url: '/apiAdmin/docs/static/swagger-initializer.js' })).statusCode).toBe(200);
  });
});

describe('inlineScriptHashes', () => {
  it('hashes each inline script as written and skips scripts with a src', () => {
    const html =
      `<script src="/a.js"></script><script>one()</script><SCRIPT type="text/javascript">\ntwo()\n</SCRIPT><script ` +
      `type="module" src="/b.js"> </script><script>one()</script><script></script>`;
    expect(inlineScriptHashes(html)).toEqual([sha('one()'), sha('\ntwo()\n')]);
  });

  it("finds the console's own inline scripts (zod's configuration, the old-browser notice) in its index.html", () => {
    const html = fs.readFileSync(path.resolve(import.meta.dirname, '../../web/index.html'), 'utf8');
    expect(inlineScriptHashes(html)).toHaveLength(2);
  });
});
