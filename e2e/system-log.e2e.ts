import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launch, newPage, server, settle, shot } from './browser.ts';
import { approveAccount, login, registerThroughUi, expectHash } from './flows.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

async function openLog(page: Page, url: string) {
  await page.goto(`${url}/#/system/log`);
  await expectHash(page, /^#\/system\/log/);
  await page.locator('[data-page-path="/system/log"] .ant-table').filter({ visible: true }).first().waitFor();
}

describe('the system log', () => {
  it(
    'shows a profile edit made in the console with its fields before → after, and exports the log as CSV',
    { timeout: 240_000 },
    async () => {
      const s = server('plain');
      const { context, page, errors } = await newPage(browser, { lang: 'zh' });
      const account = await registerThroughUi(page, s, 'enterprise');
      await approveAccount(s, account.username, '日志测试有限公司');
      await page.reload();

      // a change in the console: the nickname in the personal centre
      await page.goto(`${s.url}/#/person/info`);
      await expectHash(page, /^#\/person\/info/);
      await page.fill('#profile_nickname', '日志小王');
      await page.getByRole('button', { name: '保存资料' }).click();
      await page.getByText('资料已保存').waitFor();

      await openLog(page, s.url);
      const root = page.locator('[data-page-path="/system/log"]');
      const row = root.locator('tr', { hasText: '修改个人资料' }).first();
      await row.waitFor({ timeout: 15_000 });
      expect(await row.textContent()).toContain('nickname: – → 日志小王');
      expect(await root.locator('tr', { hasText: '注册' }).count()).toBeGreaterThan(0);
      await row.getByRole('button', { name: /详情/ }).click();
      const changes = page.getByTestId('log-changes');
      await changes.waitFor();
      const changeRow = changes.locator('tr', { hasText: 'nickname' });
      expect(await changeRow.textContent()).toContain('日志小王');
      await settle(page);
      await shot(page, 'system-log-drawer-zh');
      await page.locator('.ant-drawer-close').click();
      await changes.waitFor({ state: 'detached' });

      // the export: a CSV of the same filter, the header in the console's language
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        root.getByRole('button', { name: /导出 CSV/ }).click(),
      ]);
      expect(download.suggestedFilename()).toMatch(/^system-log-\d+\.csv$/);
      const text = fs.readFileSync(await download.path(), 'utf8').replace(/^\ufeff/, '');
      const lines = text.trim().split('\r\n');
      expect(lines[0]).toBe('时间,租户,用户,IP 地址,设备,操作,对象,对象 ID,结果,变更,详情');
      expect(lines.some((l) => l.includes('profile.update') && l.includes('日志小王'))).toBe(true);
      expect(text).not.toContain(account.password);

      // a search narrows the list
      await root.getByPlaceholder('用户名').fill(account.username);
      await root.locator('.ant-select', { hasText: '结果' }).click();
      await page.locator('.ant-select-item-option', { hasText: '失败' }).click();
      await root.getByRole('button', { name: /查\s*询/ }).click();
      await root.getByText('没有符合条件的日志').waitFor();
      await shot(page, 'system-log-zh-light');
      expect(errors).toEqual([]);
      await context.close();

      // dark, English, a phone's width
      const phone = await newPage(browser, { lang: 'en', width: 375, height: 800 });
      await phone.context.addInitScript(() => {
        if (!localStorage.getItem('admin-plus-layout'))
          localStorage.setItem('admin-plus-layout', JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }));
      });
      await login(phone.page, s, account.username, account.password);
      await expectHash(phone.page, /^#\/(?!login)/);
      await openLog(phone.page, s.url);
      await phone.page.getByText('Edit profile').first().waitFor();
      await settle(phone.page);
      await shot(phone.page, 'system-log-en-dark-375');
      const wide = await phone.page.evaluate(() =>
        [...document.querySelectorAll('[data-page-path="/system/log"] *')]
          .filter((e) => e.getBoundingClientRect().right > 376 && !e.closest('.ant-table-content'))
          .slice(0, 5)
          .map((e) => `${e.tagName}.${e.className}`.slice(0, 80)),
      );
      expect(wide).toEqual([]);
      expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      expect(phone.errors).toEqual([]);
      await phone.context.close();
    },
  );
});
