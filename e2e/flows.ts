import path from 'node:path';
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import { latestCaptcha, query, smsCode, uniqueMobile, uniqueName, type server } from './browser.ts';

type Server = ReturnType<typeof server>;
export const FIXTURES = path.resolve(import.meta.dirname, 'fixtures');

/** Fills the graphic captcha with the answer the server drew for the image on screen. */
export async function solveCaptcha(page: Page, s: Server): Promise<void> {
  await page.locator('#captcha').waitFor();
  // The image is drawn by a request: wait until it is on screen so the newest captcha is this one.
  await page.locator('img[src^="data:image/svg+xml"]').first().waitFor();
  await page.fill('#captcha', await latestCaptcha(s.databaseUrl));
}

export async function login(
  page: Page,
  s: Server,
  username: string,
  password: string,
  route = '/login',
): Promise<void> {
  await page.goto(`${s.url}/#${route}`);
  await page.fill('#username', username);
  await page.fill('#password', password);
  await solveCaptcha(page, s);
  await page.locator('form button[type=submit]').click();
}

export async function expectHash(page: Page, pattern: RegExp, timeout = 30_000): Promise<void> {
  await page.waitForFunction((src) => new RegExp(src).test(location.hash), pattern.source, { timeout });
  // Let redirects in flight (/ → /device → /device/index) settle before the test navigates on.
  await page.waitForLoadState('networkidle');
  await page.waitForFunction((src) => new RegExp(src).test(location.hash), pattern.source, { timeout });
  expect(new URL(page.url()).hash).toMatch(pattern);
}

/** Registers through the real screens: captcha, SMS code from the outbox, password rules. */
export async function registerThroughUi(page: Page, s: Server, type: 'individual' | 'enterprise' = 'individual') {
  const username = uniqueName('e2e');
  const mobile = uniqueMobile();
  const password = 'Passw0rd99';
  await page.goto(`${s.url}/#/register`);
  if (type === 'enterprise')
    await page
      .locator(
        'label:has(input[value="enterprise"]), .ant-segmented-item:has-text("Enterprise"), .ant-segmented-item:has-text("企业")',
      )
      .first()
      .click();
  await page.fill('#username', username);
  await page.fill('#mobile', mobile);
  await solveCaptcha(page, s);
  await page.locator('button:has-text("Get code"), button:has-text("获取验证码")').first().click();
  // The countdown replaces the button text once the code is sent.
  await page.waitForFunction(() => /\d+\s*s|\d+\s*秒/.test(document.body.innerText), null, { timeout: 10_000 });
  await page.fill('#smsCode', smsCode(s.dataDir, mobile));
  await page.fill('#password', password);
  await page.fill('#confirmPassword', password);
  await page.locator('form button[type=submit]').click();
  await expectHash(page, /^#\/account\/authenticate/);
  return { username, mobile, password };
}

/**
 * Opens the device list for a customer approved behind the console's back (`approveAccount`). The page loaded the
 * user as not yet approved: a reload makes it ask again, and only then may it go to the list. The other way round,
 * the guard's redirect of the stale user back to /account/authenticate can land before the reload, which then
 * reloads the wrong page.
 */
export async function openAfterApproval(page: Page, s: Server): Promise<void> {
  await page.reload();
  await page.goto(`${s.url}/#/device/index`);
  await expectHash(page, /^#\/device\/index/);
}

/**
 * Marks the account of `username` as identity-approved (staff approval is another flow's business: account.e2e.ts),
 * with the attested name shown in the console when one is given.
 */
export async function approveAccount(s: Server, username: string, attestName?: string): Promise<void> {
  await query(
    s.databaseUrl,
    `UPDATE tenants SET auth_status = 1${attestName === undefined ? '' : ', attest_name = $2'}
      WHERE id = (SELECT tenant_id FROM users WHERE username = $1)`,
    attestName === undefined ? [username] : [username, attestName],
  );
}

/**
 * One call of the console's API as a script would make it: its own login (the captcha answered from the database;
 * the e2e server's tokens live seconds, so a fresh one per call), then the call.
 */
export async function api(s: Server, who: { username: string; password: string }, path: string, body?: unknown) {
  const captcha = (await (await fetch(`${s.url}/apiAdmin/captcha`)).json()) as { data: { captchaId: string } };
  const [{ answer }] = await query<{ answer: string }>(s.databaseUrl, 'SELECT answer FROM captchas WHERE id = $1', [
    captcha.data.captchaId,
  ]);
  const login = await fetch(`${s.url}/apiAdmin/user/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      username: who.username,
      password: who.password,
      captchaId: captcha.data.captchaId,
      captcha: answer,
    }),
  });
  const token = ((await login.json()) as { data: { token: string } }).data.token;
  const res = await fetch(`${s.url}/apiAdmin${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { code: number; data: unknown } };
}
