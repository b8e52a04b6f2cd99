import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PERMISSIONS } from '../packages/contracts/src/permissions.ts';
import { launch, newPage, query, server, settle, shot, uniqueName } from './browser.ts';
import { api, approveAccount, expectHash, login, registerThroughUi } from './flows.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

const dark = (context: BrowserContext) =>
  context.addInitScript(() => {
    if (!localStorage.getItem('admin-plus-layout'))
      localStorage.setItem('admin-plus-layout', JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }));
  });
const button = (page: Page, label: string) => page.locator(`button[aria-label="${label}"]`).filter({ visible: true });

/**
 * A regional manager: a sub-account whose role sees its department (华东仓) and below, and may manage departments,
 * users and the integration. The console offers it only what the server lets it do: changes to the departments
 * below its own, roles no wider than its own, and the print jobs alone on the integration page (a key acts for
 * the whole account).
 */
describe('a department-scoped manager', () => {
  it('is offered only the changes within its data scope, in zh and en', { timeout: 300_000 }, async () => {
    const s = server('plain');
    const main = await newPage(browser, { lang: 'zh' });
    const account = await registerThroughUi(main.page, s, 'enterprise');
    await approveAccount(s, account.username, '区域测试有限公司');
    await main.context.close();
    const [{ id: tenantId }] = await query<{ id: number }>(
      s.databaseUrl,
      'SELECT tenant_id AS id FROM users WHERE username = $1',
      [account.username],
    );
    const dept = async (name: string, parentId: number | null) => {
      const res = await api(s, account, '/system/department/add', { name, parentId });
      expect(res.body.code, JSON.stringify(res.body)).toBe(200);
      return (res.body.data as { id: number }).id;
    };
    const east = await dept('华东仓', null);
    await dept('上海仓', east);
    await dept('华南仓', null);
    const [{ id: regional }] = await query<{ id: number }>(
      s.databaseUrl,
      `INSERT INTO roles (tenant_id, code, name, permissions, data_scope)
       VALUES ($1, 'regional', '区域经理', $2, 'department') RETURNING id`,
      [
        tenantId,
        [
          PERMISSIONS.departmentEdit,
          PERMISSIONS.userEdit,
          PERMISSIONS.deviceView,
          PERMISSIONS.integrationManage,
          PERMISSIONS.printView,
        ],
      ],
    );
    await query(
      s.databaseUrl,
      `INSERT INTO roles (tenant_id, code, name, permissions, data_scope) VALUES ($1, 'auditor', '全账号审计', $2, 'all')`,
      [tenantId, [PERMISSIONS.deviceView]],
    );
    const manager = { username: uniqueName('rm'), password: 'Regi0nal99' };
    const made = await api(s, account, '/system/subAccount/create', {
      ...manager,
      confirmPassword: manager.password,
      roleIds: [Number(regional)],
      departmentId: east,
    });
    expect(made.body.code, JSON.stringify(made.body)).toBe(200);

    for (const [lang, theme] of [
      ['zh', 'light'],
      ['en', 'dark'],
    ] as const) {
      const { context, page, errors } = await newPage(browser, { lang });
      if (theme === 'dark') await dark(context);
      const zh = lang === 'zh';
      await login(page, s, manager.username, manager.password);
      await expectHash(page, /^#\/device\/index/);

      // departments: the one below its own may be changed; its own only gets children; the sibling nothing
      await page.goto(`${s.url}/#/system/department`);
      await page.locator('.ant-tree-treenode', { hasText: '上海仓' }).waitFor({ timeout: 15_000 });
      const [addChild, rename, remove] = zh
        ? ['添加下级部门', '重命名', '删除']
        : ['Add a sub-department', 'Rename', 'Delete'];
      await expect.poll(() => button(page, `${rename} 上海仓`).count()).toBe(1);
      expect(await button(page, `${remove} 上海仓`).count()).toBe(1);
      expect(await button(page, `${addChild} 华东仓`).count()).toBe(1);
      for (const label of [
        `${rename} 华东仓`,
        `${remove} 华东仓`,
        `${rename} 华南仓`,
        `${remove} 华南仓`,
        `${addChild} 华南仓`,
      ])
        expect(await button(page, label).count(), label).toBe(0);
      expect(await page.getByRole('button', { name: zh ? '新建部门' : 'New department' }).count()).toBe(0);
      await settle(page);
      await shot(page, `scope-ui-department-${lang}-${theme}`);

      // a new sub-account: a role wider than its own is shown but cannot be chosen
      await page.goto(`${s.url}/#/system/user`);
      await page.getByRole('button', { name: zh ? '新建子账号' : 'New sub-account' }).click();
      const dialog = page.locator('.ant-modal').filter({ visible: true });
      await dialog.locator('#subAccount_roleIds').click();
      const wide = page.locator('.ant-select-item-option', { hasText: '全账号审计' });
      await wide.waitFor();
      await expect.poll(() => wide.getAttribute('class')).toContain('ant-select-item-option-disabled');
      const own = page.locator('.ant-select-item-option', { hasText: '区域经理' });
      expect(await own.getAttribute('class')).not.toContain('ant-select-item-option-disabled');
      await settle(page);
      await shot(page, `scope-ui-sub-account-${lang}-${theme}`);
      await page.keyboard.press('Escape'); // the dropdown
      await dialog.locator('.ant-modal-close').click();
      await dialog.waitFor({ state: 'hidden' });

      // the integration page: print jobs only, no keys
      await page.goto(`${s.url}/#/integration/index`);
      await page.getByRole('tab', { name: zh ? '打印任务' : 'Print jobs' }).waitFor({ timeout: 15_000 });
      expect(await page.getByRole('tab', { name: zh ? '应用密钥' : 'App keys' }).count()).toBe(0);
      await settle(page);
      await shot(page, `scope-ui-integration-${lang}-${theme}`);
      expect(errors).toEqual([]);
      await context.close();
    }
  });
});
