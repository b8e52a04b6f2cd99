import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launch, newPage, server, shot } from './browser.ts';
import { expectHash, login } from './flows.ts';

/**
 * What issue 3 changed in how the console arrives (sizes and timings are bench/shell.ts's): compressed
 * files, the other language and the signed-in area's strings loaded when needed, and a screen to reload
 * from when a page's code cannot be downloaded.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

function get(url: string, encoding: string): Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'accept-encoding': encoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

const decode = (body: Buffer, encoding: string | undefined) =>
  encoding === 'br' ? zlib.brotliDecompressSync(body) : encoding === 'gzip' ? zlib.gunzipSync(body) : body;

describe('serving the console', () => {
  it('sends scripts and styles compressed the way the browser accepts, with the same bytes', async () => {
    const s = server('plain');
    const index = await get(`${s.url}/`, 'gzip, br');
    // the page itself stays plain and uncached: it names the current release's files
    expect(index.headers['content-encoding']).toBeUndefined();
    expect(index.headers['cache-control']).toBe('no-cache');
    const html = index.body.toString('utf8');
    const files = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
    expect(files.length).toBeGreaterThan(2);

    for (const file of files) {
      const plain = await get(`${s.url}/${file}`, 'identity');
      expect(plain.headers['content-encoding']).toBeUndefined();
      if (plain.body.length < 1024) continue;
      // content-hashed names: a release never changes a file under its name, so it is cached for good
      expect(plain.headers['cache-control'], file).toBe('public, max-age=31536000, immutable');
      for (const encoding of ['gzip', 'br']) {
        const sent = await get(`${s.url}/${file}`, encoding);
        expect(sent.headers['content-encoding'], file).toBe(encoding);
        expect(sent.headers.vary, file).toMatch(/accept-encoding/i);
        expect(sent.headers['content-type'], file).toMatch(file.endsWith('.js') ? /javascript/ : /css/);
        expect(sent.body.length, file).toBeLessThan(plain.body.length);
        expect(decode(sent.body, encoding).equals(plain.body), file).toBe(true);
      }
    }
  });
});

describe('languages and strings loaded on demand', () => {
  it('shows an English visitor English from the first screen on, the signed-in area included', async () => {
    const s = server('plain');
    const { context, page, errors } = await newPage(browser, { lang: 'en' });
    await page.goto(`${s.url}/#/login`);
    await page.locator('form button[type=submit]').getByText('Sign in').waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    expect(await page.locator('body').innerText()).not.toMatch(/登录|欢迎/);
    await shot(page, 'first-load-login-en');
    // a public page outside the first load brings its feature's strings with it
    await page.goto(`${s.url}/#/404`);
    await page.getByText('Sorry, the page you are looking for does not exist.').waitFor();
    await login(page, s, 'admin', s.adminPassword);
    await expectHash(page, /^#\/device\/index/);
    // the shell's own strings (tab bar) are among those loaded with the signed-in area
    await page.locator('[role=tablist][aria-label="Open pages"]').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('carries a language chosen on the login page into the strings loaded after it', async () => {
    const s = server('plain');
    const { context, page, errors } = await newPage(browser);
    await page.goto(`${s.url}/#/login`);
    await page
      .locator('form button[type=submit]')
      .getByText(/登\s*录/)
      .waitFor();
    await shot(page, 'first-load-login-zh');
    await page.getByRole('group', { name: '语言' }).getByRole('button', { name: 'EN', exact: true }).click();
    await page.locator('form button[type=submit]').getByText('Sign in').waitFor();
    await page.goto(`${s.url}/#/403`);
    await page.getByText('Sorry, you are not allowed to open this page.').waitFor();
    await login(page, s, 'admin', s.adminPassword);
    await expectHash(page, /^#\/device\/index/);
    await page.locator('[role=tablist][aria-label="Open pages"]').waitFor();
    // and back: the area's strings follow the switch too
    await page.locator('.ant-segmented-item', { hasText: '中文' }).first().click();
    await page.locator('[role=tablist][aria-label="已打开的页面"]').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('lays the login screen out at 375 px in both languages', async () => {
    const s = server('plain');
    for (const lang of ['zh', 'en'] as const) {
      const { context, page } = await newPage(browser, { lang, width: 375, height: 780 });
      await page.goto(`${s.url}/#/login`);
      await page.locator('#username').waitFor();
      await page.waitForLoadState('networkidle');
      await shot(page, `first-load-login-${lang}-375`);
      await context.close();
    }
  });
});

describe('a page whose code cannot be downloaded', () => {
  it('offers a reload instead of a blank screen, and the reload opens the page', async () => {
    const s = server('plain');
    for (const lang of ['zh', 'en'] as const) {
      const { context, page } = await newPage(browser, { lang });
      await page.goto(`${s.url}/#/login`);
      await page.locator('#username').waitFor();
      await page.waitForLoadState('networkidle');
      // the network goes away: the registration screen's code cannot arrive
      await page.route('**/assets/**', (route) => route.abort('internetdisconnected'));
      await page.locator('a[href="#/register"]').click();
      const alert = page.getByRole('alert');
      await alert.getByText(lang === 'zh' ? '页面出错了' : 'Something went wrong').waitFor();
      await shot(page, `first-load-chunk-error-${lang}`);
      await page.unroute('**/assets/**');
      await alert.getByRole('button').click();
      await page.locator('#confirmPassword').waitFor();
      await expectHash(page, /^#\/register/);
      await context.close();
    }
  });
});
