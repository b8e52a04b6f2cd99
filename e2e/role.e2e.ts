import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launch, newPage, query, server, settle, shot, smsCode, uniqueMobile, uniqueName } from './browser.ts';
import { approveAccount, login, expectHash } from './flows.ts';

type Server = ReturnType<typeof server>;

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

async function envelope<T>(res: Response): Promise<T> {
  const body = (await res.json()) as { code: number; msg: string; data: T };
  if (body.code !== 200) throw new Error(`${res.url}: ${body.code} ${body.msg}`);
  return body.data;
}

const json = (token: string, body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
  body: JSON.stringify(body),
});

/** A customer registered as a script would (the SMS code from the outbox), its identity approved in the database. */
async function customer(s: Server) {
  const username = uniqueName('role');
  const mobile = uniqueMobile();
  const password = 'Passw0rd99';
  const captcha = await envelope<{ captchaId: string }>(await fetch(`${s.url}/apiAdmin/captcha`));
  const [{ answer }] = await query<{ answer: string }>(s.databaseUrl, 'SELECT answer FROM captchas WHERE id = $1', [
    captcha.captchaId,
  ]);
  await envelope(
    await fetch(`${s.url}/apiAdmin/sms/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mobile, purpose: 'register', captchaId: captcha.captchaId, captcha: answer }),
    }),
  );
  const { token } = await envelope<{ token: string }>(
    await fetch(`${s.url}/apiAdmin/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'enterprise',
        username,
        mobile,
        password,
        confirmPassword: password,
        smsCode: smsCode(s.dataDir, mobile),
      }),
    }),
  );
  await approveAccount(s, username, '角色测试有限公司');
  return { username, password, token };
}

/** The entries of the side or top menu with exactly this title. */
const menuItem = (page: Page, title: string) =>
  page.locator('.ant-menu-title-content', { hasText: new RegExp(`^\\s*${title}\\s*$`) });

describe('roles and the permission tree', () => {
  it(
    'a main account builds a role in the tree, a sub-account gets it, and loses a permission at once',
    { timeout: 300_000 },
    async () => {
      const s = server('plain');
      const main = await customer(s);
      const sub = { username: uniqueName('clerk'), password: 'Passw0rd99' };
      const created = await envelope<{ id: number }>(
        await fetch(
          `${s.url}/apiAdmin/system/subAccount/create`,
          json(main.token, { ...sub, confirmPassword: sub.password, nickname: '店员' }),
        ),
      );

      // the main account builds the role in the tree
      const { page, errors } = await newPage(browser, { lang: 'zh' });
      await login(page, s, main.username, main.password);
      await expectHash(page, /^#\/(device|home|index)/);
      await page.goto(`${s.url}/#/system/role`);
      await page.getByText('operator', { exact: true }).waitFor({ timeout: 15_000 });
      await page.getByRole('button', { name: /新建角色/ }).click();
      const drawer = page.locator('.ant-drawer').filter({ hasText: '新建角色' });
      await drawer.locator('#role_name').fill('打印查看员');
      await drawer.locator('#role_code').fill('printviewer');
      const node = (title: string) => drawer.locator('.ant-tree-treenode', { hasText: title }).last();
      await node('查看设备').locator('.ant-tree-checkbox').click();
      await node('查看打印任务').locator('.ant-tree-checkbox').click();
      // two of the section's codes: the section shows the third state
      await expect
        .poll(() =>
          drawer
            .locator('.ant-tree-treenode', { hasText: '我的设备' })
            .first()
            .locator('.ant-tree-checkbox-indeterminate')
            .count(),
        )
        .toBe(1);
      await settle(page);
      await shot(page, 'role-drawer-zh');
      await drawer.getByRole('button', { name: /创\s*建/ }).click();
      await page.getByText('角色 打印查看员 已创建').waitFor();

      // …and gives it to the sub-account from the members panel
      const row = page.locator('tr', { hasText: 'printviewer' });
      await row.getByRole('button', { name: /成员/ }).first().click();
      const members = page.locator('.ant-drawer').filter({ hasText: '打印查看员 的成员' });
      await members.getByRole('combobox').click();
      await page.locator('.ant-select-item-option', { hasText: sub.username }).click();
      await members.getByRole('button', { name: /加\s*入/ }).click();
      await page.getByText('已加入 1 个成员').waitFor();
      await members.locator('td', { hasText: sub.username }).waitFor();
      // its close button, not Escape: Escape may only close the picker's dropdown, which has the focus
      await members.locator('.ant-drawer-close').click();
      await members.waitFor({ state: 'hidden' });
      await settle(page);
      await shot(page, 'role-list-zh');

      // the sub-account sees what the role holds: the device list and the print jobs, no administration
      const other = await newPage(browser, { lang: 'zh' });
      const subPage = other.page;
      await login(subPage, s, sub.username, sub.password);
      await expectHash(subPage, /^#\/(device|home|index)/);
      await menuItem(subPage, '系统集成').first().waitFor({ timeout: 15_000 });
      expect(await menuItem(subPage, '系统管理').count()).toBe(0);
      await subPage.goto(`${s.url}/#/device/index`);
      await expectHash(subPage, /^#\/device\/index/);
      await subPage
        .getByRole('button', { name: /刷新|Refresh/ })
        .first()
        .waitFor({ timeout: 15_000 });
      expect(await subPage.getByRole('button', { name: /绑定设备/ }).count()).toBe(0);
      const subToken = await subPage.evaluate(() => sessionStorage.getItem('admin-plus-token') ?? '');
      expect(subToken).not.toBe('');
      const printJobs = () =>
        fetch(`${s.url}/apiAdmin/integration/job/list?pageNo=1&pageSize=10`, {
          headers: { authorization: `Bearer ${subToken}` },
        }).then((r) => r.status);
      const before = await printJobs();

      // the role loses print:view in the tree
      await row.getByRole('button', { name: /编\s*辑/ }).click();
      const edit = page.locator('.ant-drawer').filter({ hasText: '编辑角色 打印查看员' });
      await edit
        .locator('.ant-tree-treenode', { hasText: '查看打印任务' })
        .last()
        .locator('.ant-tree-checkbox')
        .click();
      await edit.getByRole('button', { name: /保\s*存/ }).click();
      await page.getByText('角色 打印查看员 已保存').waitFor();

      // the sub-account's very next call is refused, and its menu follows without a reload
      expect(await printJobs()).toBe(403);
      await expect.poll(() => menuItem(subPage, '系统集成').count(), { timeout: 15_000 }).toBe(0);
      await settle(subPage);
      await shot(subPage, 'role-sub-account-after-zh');
      expect(before).not.toBe(403);
      expect(created.id).toBeGreaterThan(0);
      expect(errors).toEqual([]);
      expect(other.errors).toEqual([]);
    },
  );

  it('shows the role screen at 375 px in English and the dark theme', { timeout: 120_000 }, async () => {
    const s = server('plain');
    const main = await customer(s);
    const { context, page, errors } = await newPage(browser, { lang: 'en', width: 375, height: 800 });
    await context.addInitScript(() => {
      if (!localStorage.getItem('admin-plus-layout'))
        localStorage.setItem('admin-plus-layout', JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }));
    });
    await login(page, s, main.username, main.password);
    await expectHash(page, /^#\/(device|home|index)/);
    await page.goto(`${s.url}/#/system/role`);
    await page.getByText('viewer', { exact: true }).waitFor({ timeout: 15_000 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await settle(page);
    await shot(page, 'role-list-en-375-dark');
    await page.getByRole('button', { name: /New role/ }).click();
    await page.locator('.ant-drawer').filter({ hasText: 'New role' }).locator('#role_name').waitFor();
    await settle(page);
    await shot(page, 'role-drawer-en-375');
    expect(errors).toEqual([]);
  });
});
