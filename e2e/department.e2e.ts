import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createDb } from '../apps/server/src/db/database.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs } from '../apps/device-sim/src/specs.ts';
import { launch, newPage, query, server, settle, shot, uniqueName } from './browser.ts';
import { api, approveAccount, login, registerThroughUi, expectHash } from './flows.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

const deviceRows = (page: Page) => page.locator('tr[data-device-sn]').filter({ visible: true });

describe('departments and data scope', () => {
  it("a sub-account of a department sees only that department's devices", { timeout: 300_000 }, async () => {
    const s = server('plain');
    const { context, page, errors } = await newPage(browser, { lang: 'zh' });
    const account = await registerThroughUi(page, s, 'enterprise');
    await approveAccount(s, account.username, '部门测试有限公司');
    const [{ id: tenantId }] = await query<{ id: number }>(
      s.databaseUrl,
      'SELECT tenant_id AS id FROM users WHERE username = $1',
      [account.username],
    );

    // Four devices of the account, registered and bound as the factory and an earlier binding would.
    const prefix = `DEP${Date.now().toString(36).toUpperCase().slice(-6)}`;
    const specs = makeSpecs(4, { seed: 12, prefix });
    const db = createDb(s.databaseUrl, 2);
    try {
      await registerInDb(db, specs);
      await bindInDb(
        db,
        Number(tenantId),
        specs.map((d) => d.sn),
      );
    } finally {
      await db.destroy();
    }

    // The department screen: a new department in the tree.
    await page.reload();
    await page.goto(`${s.url}/#/system/department`);
    await expectHash(page, /^#\/system\/department/);
    await page.getByText('还没有部门').waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: '新建部门' }).click();
    const form = page.locator('.ant-modal').filter({ visible: true, hasText: '新建部门' });
    await form.locator('#department_name').fill('华东仓');
    await form.getByRole('button', { name: /保\s*存/ }).click();
    await page.getByText('部门已创建').waitFor();
    await page.locator('.ant-tree-treenode', { hasText: '华东仓' }).waitFor();

    // A role that sees its department and below (the role screen is another section's: written directly).
    await query(
      s.databaseUrl,
      `INSERT INTO roles (tenant_id, code, name, permissions, data_scope) VALUES ($1, 'warehouse', '仓库管理员', $2, 'department')`,
      [tenantId, ['device:view']],
    );

    // The user screen: a sub-account in the department with that role.
    const sub = { username: uniqueName('wh'), password: 'Wareh0use99' };
    await page.goto(`${s.url}/#/system/user`);
    await expectHash(page, /^#\/system\/user/);
    await page.getByRole('button', { name: '新建子账号' }).click();
    const dialog = page.locator('.ant-modal').filter({ visible: true, hasText: '新建子账号' });
    await dialog.locator('#subAccount_username').fill(sub.username);
    await dialog.locator('#subAccount_password').fill(sub.password);
    await dialog.locator('#subAccount_confirmPassword').fill(sub.password);
    await dialog.locator('#subAccount_departmentId').click();
    await page.locator('.ant-select-tree-title', { hasText: '华东仓' }).click();
    await dialog.locator('#subAccount_roleIds').click();
    await page.locator('.ant-select-item-option', { hasText: '仓库管理员' }).click();
    await dialog.locator('.ant-modal-title').click(); // close the dropdown
    await dialog.getByRole('button', { name: /创\s*建/ }).click();
    await page.getByText('子账号已创建').waitFor();
    const row = page.locator('tr', { hasText: sub.username });
    await row.getByText('华东仓').waitFor();
    await settle(page);
    await shot(page, 'user-management-zh');

    // Two of the four devices go to the department.
    const [{ id: departmentId }] = await query<{ id: number }>(
      s.databaseUrl,
      "SELECT id FROM departments WHERE tenant_id = $1 AND name = '华东仓'",
      [tenantId],
    );
    const ids = await query<{ id: number; sn: string }>(
      s.databaseUrl,
      'SELECT id, sn FROM devices WHERE sn = ANY($1) ORDER BY sn',
      [specs.map((d) => d.sn)],
    );
    const mine = ids.slice(0, 2);
    for (const d of mine) {
      const res = await api(s, account, '/device/edit', { id: Number(d.id), departmentId: Number(departmentId) });
      expect(res.body.code, JSON.stringify(res.body)).toBe(200);
    }

    // The tree counts the member; the main account still sees all four.
    await page.goto(`${s.url}/#/system/department`);
    await page.locator('.ant-tree-treenode', { hasText: '华东仓' }).getByText('1', { exact: true }).waitFor();
    await settle(page);
    await shot(page, 'department-tree-zh');
    await page.goto(`${s.url}/#/device/index`);
    await expect.poll(() => deviceRows(page).count(), { timeout: 15_000 }).toBe(4);

    // The sub-account signs in and sees exactly the department's two devices.
    const clerk = await newPage(browser, { lang: 'zh' });
    await login(clerk.page, s, sub.username, sub.password);
    await expectHash(clerk.page, /^#\/device\/index/);
    await expect.poll(() => deviceRows(clerk.page).count(), { timeout: 15_000 }).toBe(2);
    const seen = await deviceRows(clerk.page).evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-device-sn')));
    expect(seen.sort()).toEqual(mine.map((d) => d.sn).sort());
    // another device's page is not found for it
    const other = ids[3];
    const { status } = await api(s, sub, `/device/${Number(other.id)}`);
    expect(status).toBe(404);
    await settle(clerk.page);
    await shot(clerk.page, 'department-scoped-devices-zh');
    expect(clerk.errors).toEqual([]);
    await clerk.context.close();

    // A second console of the account on the department screen sees a department added elsewhere, unreloaded.
    const second = await newPage(browser, { lang: 'zh' });
    await login(second.page, s, account.username, account.password);
    await expectHash(second.page, /^#\/device\/index/);
    await second.page.goto(`${s.url}/#/system/department`);
    await expectHash(second.page, /^#\/system\/department/);
    await shot(second.page, 'department-second-console-zh');
    await second.page.locator('.ant-tree-treenode', { hasText: '华东仓' }).waitFor({ timeout: 15_000 });
    await page.goto(`${s.url}/#/system/department`);
    await page.getByRole('button', { name: '新建部门' }).click();
    const again = page.locator('.ant-modal').filter({ visible: true, hasText: '新建部门' });
    await again.locator('#department_name').fill('华南仓');
    await again.getByRole('button', { name: /保\s*存/ }).click();
    await page.getByText('部门已创建').waitFor();
    await second.page.locator('.ant-tree-treenode', { hasText: '华南仓' }).waitFor({ timeout: 15_000 });
    expect(second.errors).toEqual([]);
    await second.context.close();

    // At a phone's width the department screen still fits.
    await page.setViewportSize({ width: 375, height: 760 });
    await page.goto(`${s.url}/#/system/department`);
    await page.locator('.ant-tree-treenode', { hasText: '华东仓' }).waitFor();
    await settle(page);
    await shot(page, 'department-tree-375-zh');
    expect(errors).toEqual([]);
    await context.close();
  });
});
