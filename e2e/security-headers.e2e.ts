import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { launch, newPage, server, settle } from './browser.ts';
import { approveAccount, FIXTURES, login, registerThroughUi, expectHash } from './flows.ts';

/**
 * The security headers in a real browser (issue 10): the console and the Swagger UI work under the server's
 * Content-Security-Policy. Every page records what the policy blocked (`securitypolicyviolation` events, and
 * Chromium's console errors about the policy); any at all fails the test, as does a page error.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

interface Watched {
  context: BrowserContext;
  page: Page;
  errors: string[];
  /** What the policy blocked, on any page of the context, reloads included. */
  violations: string[];
}

async function watchedPage(lang: 'zh' | 'en' = 'en'): Promise<Watched> {
  const { context, page, errors } = await newPage(browser, { lang });
  const violations: string[] = [];
  await context.exposeBinding('__cspViolation', (_source, v: string) => void violations.push(v));
  // an init script runs before the page's own, and outside its policy
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __cspViolation(v: string): void }).__cspViolation(
        `${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber} on ${location.href}`,
      );
    });
  });
  page.on('console', (m) => {
    if (/Content.Security.Policy|Refused to (load|execute|apply|connect|create|frame|evaluate)/i.test(m.text()))
      violations.push(`console: ${m.text()}`);
  });
  return { context, page, errors, violations };
}

/** The standard headers on a document the browser loaded. */
async function expectHeaders(res: Response | null) {
  expect(res).not.toBeNull();
  const h = await res!.allHeaders();
  expect(h['content-security-policy']).toMatch(/default-src 'self'/);
  expect(h['content-security-policy']).toMatch(/script-src 'self'( 'sha256-[^']+')*;/);
  expect(h['content-security-policy']).not.toMatch(/unsafe-eval|upgrade-insecure-requests/);
  expect(h['x-content-type-options']).toBe('nosniff');
  expect(h['x-frame-options']).toBe('SAMEORIGIN');
  expect(h['strict-transport-security']).toMatch(/max-age=\d+/);
  expect(h['referrer-policy']).toBe('no-referrer');
  expect(h['cross-origin-opener-policy']).toBe('same-origin');
}

/** Opens a page of the console and waits for it to draw and settle. */
async function visit(w: Watched, url: string, hash: RegExp, ready: string) {
  await w.page.goto(url);
  await expectHash(w.page, hash);
  await w.page.locator(ready).filter({ visible: true }).first().waitFor({ timeout: 20_000 });
  await settle(w.page);
}

describe('the Content-Security-Policy in the browser', () => {
  it('lets the login and registration pages work: the captcha, the old-browser check, the styles', async () => {
    const s = server('plain');
    const w = await watchedPage('zh');
    const res = await w.page.goto(`${s.url}/#/login`);
    await expectHeaders(res);
    // the captcha is a data: SVG image
    await w.page.locator('img[src^="data:image/svg+xml"]').first().waitFor();
    await expect
      .poll(() =>
        w.page
          .locator('img[src^="data:image/svg+xml"]')
          .first()
          .evaluate((i) => (i as HTMLImageElement).naturalWidth),
      )
      .toBeGreaterThan(0);
    // antd's styles applied (its CSS-in-JS <style> elements are allowed)
    expect(
      await w.page.locator('form button[type=submit]').evaluate((b) => getComputedStyle(b).backgroundColor),
    ).not.toBe('rgba(0, 0, 0, 0)');
    // the inline old-browser check ran (its hash is in the policy): it would have set nothing on a modern browser,
    // and a blocked inline script is a violation
    await w.page.goto(`${s.url}/#/register`);
    await w.page.locator('#mobile').waitFor();
    await settle(w.page);
    expect(w.violations).toEqual([]);
    expect(w.errors).toEqual([]);
    await w.context.close();
  });

  it(
    "lets a customer's console work: uploads and their previews, signed images, live events, charts, the map",
    { timeout: 240_000 },
    async () => {
      const s = server('plain');
      const w = await watchedPage('en');
      const account = await registerThroughUi(w.page, s);
      // identity images: blob: previews, then the uploaded objects
      const inputs = w.page.locator('input[type=file]');
      await expect.poll(() => inputs.count()).toBe(2);
      await inputs.nth(0).setInputFiles(path.join(FIXTURES, 'id-card.png'));
      await inputs.nth(1).setInputFiles(path.join(FIXTURES, 'id-card.png'));
      await expect
        .poll(
          () =>
            w.page
              .locator('img[alt]')
              .evaluateAll(
                (imgs) =>
                  imgs.filter(
                    (i) => (i as HTMLImageElement).style.opacity === '1' && (i as HTMLImageElement).naturalWidth > 0,
                  ).length,
              ),
          { timeout: 15_000 },
        )
        .toBeGreaterThanOrEqual(2);
      await approveAccount(s, account.username, 'CSP test');
      await w.context.clearCookies();
      await w.page.evaluate(() => sessionStorage.clear());
      await w.page.reload();
      await login(w.page, s, account.username, account.password);
      await expectHash(w.page, /^#\/device\/index/);

      // the device list holds a server-sent events stream
      await w.page.waitForResponse((r) => r.url().includes('/device/events'), { timeout: 20_000 }).catch(() => null);
      await settle(w.page);
      await visit(w, `${s.url}/#/index`, /^#\/index/, 'canvas, .ant-empty, .ant-card');
      await visit(w, `${s.url}/#/device/map`, /^#\/device\/map/, 'canvas, .ant-empty');
      await visit(w, `${s.url}/#/integration/index`, /^#\/integration/, '.ant-card, .ant-table, .ant-empty');

      // an avatar: a signed object URL of the server shown in the header
      await visit(w, `${s.url}/#/person/info`, /^#\/person\/info/, '[data-testid="profile-name"]');
      await w.page.locator('input[type=file]').setInputFiles(path.join(FIXTURES, 'id-card.png'));
      const avatar = w.page.locator('[data-testid="avatar-menu"] img');
      await expect.poll(() => avatar.getAttribute('src'), { timeout: 15_000 }).toMatch(/\/apiAdmin\/objects\/.+sig=/);
      await expect.poll(() => avatar.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);

      // a reload of a signed-in page: the document's own headers
      await expectHeaders(await w.page.reload());
      await w.page
        .locator('[data-testid="profile-name"]')
        .filter({ visible: true })
        .first()
        .waitFor({ timeout: 20_000 });
      await settle(w.page);
      expect(w.violations).toEqual([]);
      expect(w.errors).toEqual([]);
      await w.context.close();
    },
  );

  it("lets the platform's pages work for staff", { timeout: 120_000 }, async () => {
    const s = server('plain');
    const w = await watchedPage('zh');
    await login(w.page, s, 'admin', s.adminPassword);
    await expectHash(w.page, /^#\/device\/index/);
    await settle(w.page);
    await visit(w, `${s.url}/#/system/identity`, /^#\/system\/identity/, '.ant-table, .ant-empty');
    await visit(w, `${s.url}/#/index`, /^#\/index/, 'canvas, .ant-empty, .ant-card');
    expect(w.violations).toEqual([]);
    expect(w.errors).toEqual([]);
    await w.context.close();
  });

  it('lets the Swagger UI at /apiAdmin/docs work', async () => {
    const s = server('plain');
    const w = await watchedPage('en');
    const res = await w.page.goto(`${s.url}/apiAdmin/docs`);
    await expectHeaders(res);
    // drawn from the document it fetched: the title and the operations
    await w.page.locator('.swagger-ui .info .title').waitFor({ timeout: 20_000 });
    await w.page.locator('.swagger-ui .opblock').first().waitFor({ timeout: 20_000 });
    await w.page.locator('.swagger-ui .opblock-summary').first().click();
    await w.page.locator('.swagger-ui .opblock-body').first().waitFor();
    expect(w.violations).toEqual([]);
    expect(w.errors).toEqual([]);
    await w.context.close();
  });
});
