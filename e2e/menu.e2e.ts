import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launch, newPage, query, server, settle, shot } from './browser.ts';
import { approveAccount, openAfterApproval, login, registerThroughUi, expectHash } from './flows.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

/** The side menu's entries, top to bottom, as the user sees them. */
const sideMenu = (page: Page) =>
  page.getByTestId('side-menu').locator('.ant-menu-item, .ant-menu-submenu-title').allInnerTexts();
const node = (page: Page, name: string) => page.getByTestId(`menu-node-${name}`);

describe('menu management (staff)', () => {
  it(
    'staff reorder and hide an item, a customer signing in afterwards sees it, and a rollback brings it back',
    { timeout: 300_000 },
    async () => {
      const s = server('plain');
      // tall enough to show the whole tree: a drag that has to scroll the page drops on the wrong node
      const staff = await newPage(browser, { lang: 'zh', height: 2200 });
      const page = staff.page;
      await login(page, s, 'admin', s.adminPassword);
      await expectHash(page, /^#\/device\/index/);
      await page.goto(`${s.url}/#/system/menu`);
      await expectHash(page, /^#\/system\/menu/);
      await node(page, 'Integration').waitFor({ timeout: 15_000 });
      const [{ n: versionsBefore }] = await query<{ n: number }>(
        s.databaseUrl,
        'SELECT count(*)::int AS n FROM menu_versions',
      );

      // drag "Integration" onto the upper edge of "Device": it goes before it
      const target = node(page, 'Device');
      await node(page, 'Integration').dragTo(target, { targetPosition: { x: 4, y: 1 } });
      await page.getByText('已移动').waitFor();
      await expect
        .poll(async () => {
          const [row] = await query<{ a: number; b: number }>(
            s.databaseUrl,
            `SELECT (SELECT sort FROM menus WHERE name = 'Integration') AS a, (SELECT sort FROM menus WHERE name = 'Device') AS b`,
          );
          return row.a < row.b;
        })
        .toBe(true);

      // hide "Device map": the preview (as a customer) drops it before it is even saved
      await node(page, 'DeviceMap').click();
      await expect.poll(() => page.inputValue('#menuRecord_name')).toBe('DeviceMap');
      const preview = page.getByTestId('menu-preview');
      await preview.getByText('设备地图').waitFor();
      await page.locator('#menuRecord_flags').getByLabel('隐藏', { exact: true }).check();
      await expect.poll(() => preview.getByText('设备地图').count()).toBe(0);
      await page.getByRole('button', { name: /^保\s*存$/ }).click();
      await page.getByText('已保存').waitFor();
      await settle(page);
      await shot(page, 'menu-management');

      // a bad record is refused beside its field, nothing changes
      await page.fill('#menuRecord_path', 'index');
      await page.getByRole('button', { name: /^保\s*存$/ }).click();
      await page.getByText('已有菜单项使用路径 /device/index').waitFor();
      const [{ n: versionsAfter }] = await query<{ n: number }>(
        s.databaseUrl,
        'SELECT count(*)::int AS n FROM menu_versions',
      );
      expect(versionsAfter).toBe(versionsBefore + 2);

      // a customer signing in afterwards: the new order, without the hidden item
      const customer = await newPage(browser, { lang: 'zh' });
      const account = await registerThroughUi(customer.page, s);
      await approveAccount(s, account.username);
      await openAfterApproval(customer.page, s);
      await customer.page.getByTestId('side-menu').waitFor();
      let items = await sideMenu(customer.page);
      expect(items).not.toContain('设备地图');
      expect(items.indexOf('系统集成')).toBeGreaterThanOrEqual(0);
      expect(items.indexOf('系统集成')).toBeLessThan(items.indexOf('我的设备'));

      // staff roll back to the version before both changes
      await page.getByRole('button', { name: /版本/ }).click();
      const drawer = page.getByTestId('menu-versions');
      const rows = drawer.locator('.ant-list-item');
      await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(3);
      const restored = Number(
        (
          await rows
            .nth(2)
            .getByText(/^#\d+$/)
            .innerText()
        ).slice(1),
      );
      await rows
        .nth(2)
        .getByRole('button', { name: /^回\s*滚$/ })
        .click();
      await page
        .locator('.ant-modal-confirm')
        .getByRole('button', { name: /^回\s*滚$/ })
        .click();
      // the toast lasts 3 s and the staff member's own menu reloads at once: wait for what stays, the new version
      await expect
        .poll(
          async () =>
            (await query<{ note: string }>(s.databaseUrl, 'SELECT note FROM menu_versions ORDER BY id DESC LIMIT 1'))[0]
              ?.note,
          { timeout: 30_000 },
        )
        .toBe(`rollback to #${restored}`);
      await page.locator('.ant-modal-confirm').waitFor({ state: 'detached' });
      await settle(page);
      await shot(page, 'menu-versions');

      // the customer's next load: back as it was
      await customer.page.reload();
      await customer.page.getByTestId('side-menu').waitFor();
      await expect.poll(() => sideMenu(customer.page)).toContain('设备地图');
      items = await sideMenu(customer.page);
      expect(items.indexOf('我的设备')).toBeLessThan(items.indexOf('系统集成'));

      // usable at 375 px wide, in en and dark
      const narrow = await newPage(browser, { lang: 'en', width: 375, height: 800 });
      // and in the dark scheme
      await narrow.context.addInitScript(() => {
        if (!localStorage.getItem('admin-plus-layout'))
          localStorage.setItem('admin-plus-layout', JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }));
      });
      await login(narrow.page, s, 'admin', s.adminPassword);
      await expectHash(narrow.page, /^#\/device\/index/);
      await narrow.page.goto(`${s.url}/#/system/menu`);
      await node(narrow.page, 'Device').click();
      await expect.poll(() => narrow.page.inputValue('#menuRecord_name')).toBe('Device');
      const overflow = await narrow.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await settle(narrow.page);
      await shot(narrow.page, 'menu-management-375');

      expect([...staff.errors, ...customer.errors, ...narrow.errors]).toEqual([]);
      await Promise.all([staff.context.close(), customer.context.close(), narrow.context.close()]);
    },
  );
});
