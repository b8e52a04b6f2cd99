import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launch, newPage, server, shot } from './browser.ts';
import { FIXTURES, expectHash, login, registerThroughUi, solveCaptcha } from './flows.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

const ID_NUMBER = '11010519491231002X';

describe('a customer from registration to the console', () => {
  it('registers with the SMS code, authenticates with uploads, is approved by staff, logs in and lands on /device', async () => {
    const s = server('plain');
    const { context, page, errors } = await newPage(browser, { lang: 'en' });
    const account = await registerThroughUi(page, s);
    await shot(page, 'authenticate-form-en');

    // The identity form: a text file named .png is refused by its bytes on the server.
    await page.fill('#realName', '张三');
    await page.fill('#idNumber', ID_NUMBER);
    const inputs = page.locator('input[type=file]');
    await expect.poll(() => inputs.count()).toBe(2);
    await inputs.nth(0).setInputFiles(path.join(FIXTURES, 'id-card.png'));
    await inputs.nth(1).setInputFiles(path.join(FIXTURES, 'id-card.png'));
    // Both previews shown at full opacity once their upload is done.
    await expect
      .poll(
        () =>
          page
            .locator('img[alt]')
            .evaluateAll((imgs) => imgs.filter((i) => (i as HTMLImageElement).style.opacity === '1').length),
        { timeout: 15_000 },
      )
      .toBeGreaterThanOrEqual(2);
    await page.locator('form button[type=submit]').click();
    await page
      .getByText(/waiting for review/i)
      .first()
      .waitFor({ timeout: 15_000 });
    await shot(page, 'authenticate-waiting-en');

    // While waiting, every console page sends the user back to the authentication page.
    await page.goto(`${s.url}/#/device`);
    await expectHash(page, /^#\/account\/authenticate/);

    // Staff approves in the review screen.
    const staff = await newPage(browser, { lang: 'en' });
    await login(staff.page, s, 'admin', s.adminPassword);
    await expectHash(staff.page, /^#\/device\/index/);
    await staff.page.goto(`${s.url}/#/system/identity`);
    const row = staff.page.locator('tr', { hasText: account.username });
    await row.waitFor({ timeout: 15_000 });
    await shot(staff.page, 'identity-review-en');
    await shot(staff.page, 'identity-review-en');
    await row.getByRole('button', { name: /approve/i }).click();
    await staff.page
      .locator('.ant-modal-confirm, .ant-popover, .ant-modal')
      .getByRole('button', { name: /approve|ok|confirm/i })
      .last()
      .click();
    // It leaves the waiting list and shows under Approved.
    await staff.page.locator('tr', { hasText: account.username }).waitFor({ state: 'detached', timeout: 15_000 });
    await staff.page.locator('.ant-segmented-item', { hasText: 'Approved' }).click();
    await staff.page.locator('tr', { hasText: account.username }).waitFor({ timeout: 15_000 });
    await staff.context.close();

    // The customer logs in again and lands on My devices.
    // A fresh browser session: the in-memory session of the old page would otherwise still be there.
    await context.clearCookies();
    await page.evaluate(() => sessionStorage.clear());
    await page.reload();
    await login(page, s, account.mobile, account.password);
    await expectHash(page, /^#\/device\/index/);
    await page
      .getByText(/my devices/i)
      .first()
      .waitFor();
    await shot(page, 'device-en');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('login', () => {
  it('shows the generic message for a wrong password, in the chosen language, and stays on the login page', async () => {
    const s = server('plain');
    const zh = await newPage(browser, { lang: 'zh' });
    await login(zh.page, s, 'admin', 'WrongPassword1');
    await zh.page.getByText('用户名或密码错误').first().waitFor({ timeout: 10_000 });
    await zh.context.close();
    const { context, page } = await newPage(browser, { lang: 'en' });
    await login(page, s, 'admin', 'WrongPassword1');
    await page.getByText('wrong user name or password').first().waitFor({ timeout: 10_000 });
    await expectHash(page, /^#\/login/);
    // The captcha was consumed: a new one is drawn for the next try.
    await login(page, s, 'admin', s.adminPassword);
    await expectHash(page, /^#\/device\/index/);
    await context.close();
  });

  it('keeps the intended path through the login and returns to it', async () => {
    const s = server('plain');
    const { context, page } = await newPage(browser, { lang: 'en' });
    await page.goto(`${s.url}/#/system/identity`);
    await expectHash(page, /^#\/login\?redirect=/);
    await page.fill('#username', 'admin');
    await page.fill('#password', s.adminPassword);
    await solveCaptcha(page, s);
    await page.locator('form button[type=submit]').click();
    await expectHash(page, /^#\/system\/identity/);
    // /login while logged in goes home.
    await page.goto(`${s.url}/#/login`);
    await expectHash(page, /^#\/device\/index/);
    await context.close();
  });

  it('the alternative login /login88121 logs in too', async () => {
    const s = server('plain');
    const { context, page } = await newPage(browser, { lang: 'zh' });
    await login(page, s, 'admin', s.adminPassword, '/login88121');
    await expectHash(page, /^#\/device\/index/);
    await context.close();
  });

  it('refreshes an expired access token mid-session without the user noticing', async () => {
    const s = server('plain'); // ACCESS_TOKEN_TTL is 8 s on this server
    const { context, page } = await newPage(browser, { lang: 'en' });
    await login(page, s, 'admin', s.adminPassword);
    await expectHash(page, /^#\/device\/index/);
    const statuses: number[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/apiAdmin/')) statuses.push(r.status());
    });
    let refreshes = 0;
    page.on('request', (r) => {
      if (r.url().includes('/apiAdmin/refreshToken')) refreshes++;
    });
    await page.waitForTimeout(9_000);
    // The next page load meets 402; the request layer refreshes once and replays.
    await page.goto(`${s.url}/#/system/identity`);
    await page.locator('.ant-table').filter({ visible: true }).first().waitFor({ timeout: 15_000 });
    await expect.poll(() => statuses.includes(402)).toBe(true);
    await expect.poll(() => refreshes).toBe(1);
    await expectHash(page, /^#\/system\/identity/);
    await context.close();
  });

  it('logs out: the session ends and console pages go back to the login', async () => {
    const s = server('plain');
    const { context, page } = await newPage(browser, { lang: 'en' });
    await login(page, s, 'admin', s.adminPassword);
    await expectHash(page, /^#\/device\/index/);
    const token = await page.evaluate(() => sessionStorage.getItem('admin-plus-token'));
    expect(token).toBeTruthy();
    await page.locator('[data-testid="avatar-menu"]').click();
    // the menu's own entry: a page behind it may offer a "Log out" of its own (a sub-account's forced logout)
    await page.locator('.ant-dropdown-menu').filter({ visible: true }).getByText('Log out', { exact: true }).click();
    await expectHash(page, /^#\/login/);
    expect(await page.evaluate(() => sessionStorage.getItem('admin-plus-token'))).toBeFalsy();
    const res = await fetch(`${s.url}/apiAdmin/user/v1/user/userInfo`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(401);
    await page.goto(`${s.url}/#/device`);
    await expectHash(page, /^#\/login/);
    await context.close();
  });
});

describe('routes and languages', () => {
  it('sends an unknown path to /404 (after the login when logged out)', async () => {
    const s = server('plain');
    const { context, page } = await newPage(browser, { lang: 'en' });
    await page.goto(`${s.url}/#/no/such/page`);
    await expectHash(page, /^#\/login\?redirect=/);
    await page.fill('#username', 'admin');
    await page.fill('#password', s.adminPassword);
    await solveCaptcha(page, s);
    await page.locator('form button[type=submit]').click();
    await expectHash(page, /^#\/404/);
    await page.getByText('404').first().waitFor();
    await page.goto(`${s.url}/#/still/nothing`);
    await expectHash(page, /^#\/404/);
    await page.goto(`${s.url}/#/403`);
    await shot(page, '403-en');
    await context.close();
  });

  it('switches between zh (default) and en and remembers it across a reload', async () => {
    const s = server('plain');
    const { context, page } = await newPage(browser);
    await page.goto(`${s.url}/#/login`);
    await page
      .locator('form button[type=submit]')
      .getByText(/登\s*录/)
      .waitFor();
    await shot(page, 'login-zh');
    await page.getByRole('group', { name: '语言' }).getByRole('button', { name: 'EN', exact: true }).click();
    await page.locator('form button[type=submit]').getByText('Sign in').waitFor();
    await shot(page, 'login-en');
    await page.reload();
    await page.locator('form button[type=submit]').getByText('Sign in').waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toMatch(/^en/);
    await context.close();
  });

  it('screenshots the public screens in both languages', async () => {
    const s = server('plain');
    for (const lang of ['zh', 'en'] as const) {
      const { context, page } = await newPage(browser, { lang });
      for (const [route, name] of [
        ['/register', 'register'],
        ['/login88121', 'login88121'],
        ['/404', '404'],
        ['/403', '403'],
      ] as const) {
        await page.goto(`${s.url}/#${route}`);
        await page.waitForLoadState('networkidle');
        await shot(page, `${name}-${lang}`);
      }
      await login(page, s, 'admin', s.adminPassword);
      await expectHash(page, /^#\/device\/index/);
      await shot(page, `device-admin-${lang}`);
      await page.goto(`${s.url}/#/system/identity`);
      // The review page's status filter: the device table above would satisfy a bare table selector.
      await page.locator('.ant-layout-content .ant-segmented').waitFor();
      await page.waitForLoadState('networkidle');
      await shot(page, `identity-review-${lang}`);
      const mobile = await newPage(browser, { lang, width: 375, height: 780 });
      await mobile.page.goto(`${s.url}/#/login`);
      await mobile.page.waitForLoadState('networkidle');
      await shot(mobile.page, `login-mobile-${lang}`);
      await mobile.context.close();
      await context.close();
    }
  });
});
