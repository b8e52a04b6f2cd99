import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launch, newPage, query, server, shot, uniqueName, settle } from './browser.ts';
import { approveAccount, FIXTURES, login, registerThroughUi, expectHash } from './flows.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

const headerAvatar = (page: Page) => page.locator('[data-testid="avatar-menu"] img');

/** Waits for the personal centre to show the profile of `username`. */
async function openPersonInfo(page: Page, url: string, username: string) {
  await page.goto(`${url}/#/person/info`);
  await expectHash(page, /^#\/person\/info/);
  await page
    .locator('[data-testid="profile-name"]', { hasText: username })
    .filter({ visible: true })
    .first()
    .waitFor({ timeout: 15_000 });
}

describe('the personal centre and sub-accounts of a customer', () => {
  // one long journey: registration, two extra browsers and a sub-account's login take a while on a busy machine
  it(
    'edits the profile, uploads an avatar, changes the password, signs out another session, and manages a sub-account',
    { timeout: 300_000 },
    async () => {
      const s = server('plain');
      const { context, page, errors } = await newPage(browser, { lang: 'zh' });
      const account = await registerThroughUi(page, s, 'enterprise');
      // Staff approval is another flow's business (account.e2e.ts): approve directly.
      await approveAccount(s, account.username, '云打印测试有限公司');
      // The guard loaded this user as unauthenticated: a reload makes it ask again.
      await page.reload();
      await openPersonInfo(page, s.url, account.username);
      await page.getByText('云打印测试有限公司').first().waitFor();
      await expect
        .poll(() => page.locator('[data-testid="profile-mobile"]').textContent())
        .toBe(`${account.mobile.slice(0, 3)}****${account.mobile.slice(-4)}`);

      // Profile: a bad e-mail is refused in the form, a good one saved and kept after a reload.
      await page.fill('#profile_nickname', '前台小王');
      await page.fill('#profile_email', 'not-an-email');
      await page.getByRole('button', { name: '保存资料' }).click();
      await page.getByText('请输入正确的邮箱地址').waitFor();
      await page.fill('#profile_email', 'wang@example.com');
      await page.getByRole('button', { name: '保存资料' }).click();
      await page.getByText('资料已保存').waitFor();
      await page.locator('[data-testid="profile-name"]', { hasText: '前台小王' }).waitFor();
      await page.reload();
      await page.locator('[data-testid="profile-name"]', { hasText: '前台小王' }).waitFor({ timeout: 15_000 });
      expect(await page.inputValue('#profile_email')).toBe('wang@example.com');

      // Avatar: the upload (checked by its bytes on the server) shows in the header at once.
      expect(await headerAvatar(page).count()).toBe(0);
      // the upload is held at the server's door, so its progress can be seen
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/apiAdmin/upload', async (route) => {
        await held;
        await route.continue();
      });
      await page.locator('input[type=file]').setInputFiles(path.join(FIXTURES, 'id-card.png'));
      const progress = page.locator('[role="progressbar"][aria-label]');
      await progress.waitFor();
      expect(Number(await progress.getAttribute('aria-valuenow'))).toBeGreaterThanOrEqual(0);
      expect(await progress.getAttribute('aria-label')).toMatch(/^上传中 \d+%$/);
      release();
      await page.getByText('头像已更新').waitFor({ timeout: 15_000 });
      await progress.waitFor({ state: 'detached' });
      await page.unroute('**/apiAdmin/upload');
      await expect
        .poll(() => headerAvatar(page).getAttribute('src'), { timeout: 10_000 })
        .toMatch(/\/apiAdmin\/objects\/.+sig=/);
      // and the image itself loads
      await expect
        .poll(() => headerAvatar(page).evaluate((img) => (img as HTMLImageElement).naturalWidth))
        .toBeGreaterThan(0);
      await shot(page, 'person-info-customer-zh');

      // A second browser signs in; the first sees it among the sessions and signs it out.
      const other = await newPage(browser, { lang: 'zh' });
      await login(other.page, s, account.username, account.password);
      await expectHash(other.page, /^#\/device\/index/);
      await page.getByRole('tab', { name: '登录设备' }).click();
      await page.getByRole('button', { name: '刷新', exact: true }).click();
      await expect
        .poll(() => page.locator('[data-testid="session-row"]').count(), { timeout: 10_000 })
        .toBeGreaterThanOrEqual(2);
      await shot(page, 'person-sessions-zh');
      const otherToken = await other.page.evaluate(() => sessionStorage.getItem('admin-plus-token'));
      const rows = page.locator('[data-testid="session-row"][data-current="false"]');
      while ((await rows.count()) > 0) {
        await rows.first().getByRole('button', { name: '退出登录' }).click();
        await page
          .locator('.ant-popover')
          .getByRole('button', { name: /确\s*定/ })
          .click();
        await page.getByText('已退出该会话').first().waitFor();
        await page.locator('.ant-popover').waitFor({ state: 'hidden' });
      }
      // that browser's access token may have run out already (8 s here): its refresh is refused too
      expect([401, 402]).toContain(
        (await fetch(`${s.url}/apiAdmin/user/v1/user/userInfo`, { headers: { authorization: `Bearer ${otherToken}` } }))
          .status,
      );
      await other.page.reload();
      await expectHash(other.page, /^#\/login/);
      await other.context.close();

      // Password: the old one is required, the new one must be strong; every other session ends with the change.
      const third = await newPage(browser, { lang: 'zh' });
      await login(third.page, s, account.username, account.password);
      await expectHash(third.page, /^#\/device\/index/);
      await page.getByRole('tab', { name: '修改密码' }).click();
      await page.fill('#password_oldPassword', 'Wrong0Pass1');
      await page.fill('#password_password', 'N3wPassw0rd');
      await page.fill('#password_confirmPassword', 'N3wPassw0rd');
      await page.locator('form[id="password"] button[type=submit]').click();
      await page.getByText('当前密码不正确').waitFor();
      await page.fill('#password_oldPassword', account.password);
      await page.locator('form[id="password"] button[type=submit]').click();
      await page.getByText('密码已修改，其他登录会话已退出').waitFor();
      // the other browser is signed out at its next step; this one goes on
      await third.page.reload();
      await expectHash(third.page, /^#\/login/);
      await third.context.close();
      await page.getByRole('tab', { name: '基本资料' }).click();
      await page.locator('[data-testid="profile-name"]', { hasText: '前台小王' }).waitFor();
      await page.locator('[data-testid="avatar-menu"]').click();
      await page.locator('.ant-dropdown-menu-item', { hasText: '退出登录' }).click();
      await expectHash(page, /^#\/login/);
      await login(page, s, account.username, account.password);
      // the server says it in the console's language
      await page.getByText('用户名或密码错误').first().waitFor({ timeout: 10_000 });
      await login(page, s, account.username, 'N3wPassw0rd');
      await expectHash(page, /^#\/device\/index/);

      // Sub-account: created by the main account with a role, it logs in with its initial password.
      const sub = { username: uniqueName('clerk'), password: 'Clerk0Passw0rd' };
      await page.goto(`${s.url}/#/person/subAccount`);
      await page.getByRole('button', { name: '新建子账号' }).click();
      const dialog = page.locator('.ant-modal').filter({ hasText: '新建子账号' });
      await dialog.locator('#subAccount_username').fill(sub.username);
      await dialog.locator('#subAccount_nickname').fill('收银台');
      await dialog.locator('#subAccount_password').fill(sub.password);
      await dialog.locator('#subAccount_confirmPassword').fill(sub.password);
      await dialog.locator('#subAccount_roleIds').click();
      await page.locator('.ant-select-item-option', { hasText: '设备操作员' }).click();
      await dialog.locator('.ant-modal-title').click(); // close the dropdown
      await shot(page, 'sub-account-form-zh');
      await dialog.getByRole('button', { name: /创\s*建/ }).click();
      await page.getByText('子账号已创建').waitFor();
      const row = page.locator('tr', { hasText: sub.username });
      await row.waitFor();
      await row.getByText('设备操作员').waitFor();
      await shot(page, 'sub-account-list-zh');

      const clerk = await newPage(browser, { lang: 'zh' });
      await login(clerk.page, s, sub.username, sub.password);
      await expectHash(clerk.page, /^#\/device\/index/);
      await clerk.page.goto(`${s.url}/#/person/subAccount`);
      await clerk.page.getByText('你没有管理用户的权限').waitFor();
      await shot(clerk.page, 'sub-account-forbidden-zh');
      await openPersonInfo(clerk.page, s.url, '收银台');
      await clerk.page.getByText('子账号', { exact: true }).first().waitFor();
      expect(clerk.errors).toEqual([]);
      await clerk.context.close();

      // Disabling it from the main account ends its session there and then.
      await row.getByRole('button', { name: /更多/ }).click();
      await page.locator('.ant-dropdown-menu-item', { hasText: '禁用' }).click();
      await page
        .locator('.ant-modal-confirm')
        .getByRole('button', { name: /确\s*定/ })
        .click();
      await row.getByText('已禁用').waitFor();
      const refused = await query<{ n: string }>(
        s.databaseUrl,
        `SELECT count(*) AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.username = $1 AND s.revoked_at IS NULL`,
        [sub.username],
      );
      expect(Number(refused[0].n)).toBe(0);

      expect(errors).toEqual([]);
      await context.close();
    },
  );
});

describe('screens', () => {
  it(
    'screenshots the personal centre and sub-accounts in zh and en, light and dark, desktop and 375 px',
    { timeout: 300_000 },
    async () => {
      const s = server('plain');
      // a staff sub-account, so the table has a row to show (it never logs in)
      await query(
        s.databaseUrl,
        `INSERT INTO users (tenant_id, username, nickname, email, is_super, password_hash) SELECT id, 'duty_desk', '值班客服', ` +
          `'desk@example.com', 2, 'no-login' FROM tenants WHERE kind = 'platform' ON CONFLICT DO NOTHING`,
      );
      for (const lang of ['zh', 'en'] as const) {
        for (const scheme of ['light', 'dark'] as const) {
          const { context, page, errors } = await newPage(browser, { lang });
          if (scheme === 'dark') {
            await context.addInitScript(() => {
              if (!localStorage.getItem('admin-plus-layout'))
                localStorage.setItem(
                  'admin-plus-layout',
                  JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }),
                );
            });
          }
          await login(page, s, 'admin', s.adminPassword);
          await expectHash(page, /^#\/device\/index/);
          for (const [width, height, size] of [
            [1366, 860, 'desktop'],
            [375, 780, 'mobile'],
          ] as const) {
            await page.setViewportSize({ width, height });
            await openPersonInfo(page, s.url, 'admin');
            await page.waitForLoadState('networkidle');
            await settle(page);
            await shot(page, `person-info-${lang}-${scheme}-${size}`);
            await page.goto(`${s.url}/#/person/subAccount`);
            await page.locator('.ant-table').filter({ visible: true }).first().waitFor();
            await page.waitForLoadState('networkidle');
            await settle(page);
            await shot(page, `sub-account-${lang}-${scheme}-${size}`);
          }
          // The avatar dropdown's personal centre is the same page: it leads to /person/info (one tab).
          await page.goto(`${s.url}/#/setting/personalCenter`);
          await expectHash(page, /^#\/person\/info/);
          await page
            .locator('[data-testid="profile-name"]', { hasText: 'admin' })
            .filter({ visible: true })
            .first()
            .waitFor({ timeout: 15_000 });
          expect(errors).toEqual([]);
          await context.close();
        }
      }
    },
  );
});
