import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createFleet, type Fleet } from '../apps/device-sim/src/fleet.ts';
import { makeSpecs } from '../apps/device-sim/src/specs.ts';
import { launch, newPage, query, server, settle, shot } from './browser.ts';
import { bindDevices, groupWithSubgroup, storedApp, tenantOf } from './fleet-setup.ts';
import { approveAccount, expectHash, login, registerThroughUi } from './flows.ts';

let browser: Browser;
let fleet: Fleet | undefined;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await fleet?.stop().catch(() => {});
  await browser?.close();
});

const drawer = (page: Page) => page.locator('.ant-drawer-section').filter({ visible: true });

/**
 * Application installation (issue 15) in the browser: an app installed on a group of simulated devices from the
 * page, each device's progress followed live in the detail drawer, then found in "which devices run version X".
 */
describe('application installation', () => {
  it('installs on a group, follows it live, then finds the version on the devices', { timeout: 300_000 }, async () => {
    const s = server('plain');
    const { context, page, errors } = await newPage(browser, { lang: 'zh' });
    const reg = await registerThroughUi(page, s, 'individual');
    const tenantId = await tenantOf(s, reg.username);
    await approveAccount(s, reg.username, '张三');

    // three devices in a group "门店" (two in it, one in its sub-group), and an app of 1 MB uploaded
    const prefix = `AI${Date.now().toString(36).toUpperCase().slice(-6)}`;
    const specs = makeSpecs(3, { seed: 15, prefix });
    await bindDevices(s, tenantId, specs);
    await groupWithSubgroup(
      s,
      tenantId,
      { group: '门店', subgroup: '北区' },
      { inGroup: specs.slice(0, 2).map((x) => x.sn), inSubgroup: [specs[2].sn] },
    );
    await storedApp(s, tenantId, reg.username, {
      name: '门店收银',
      identifier: 'com.shop.pos',
      versionName: '2.0.0',
      versionCode: 200,
      size: 1_000_000,
      file: 'pos.apk',
    });
    // 250 kB/s: four seconds of download, long enough to be seen
    fleet = await createFleet({
      url: s.mqttUrl,
      specs,
      start: false,
      randomFaults: false,
      software: { bytesPerSecond: 250_000, installMs: 1_000 },
    });
    for (const d of fleet.devices) await d.powerOn();

    await page.reload();
    await page.goto(`${s.url}/#/application/applicationInstall`);
    await expectHash(page, /^#\/application\/applicationInstall/);
    await page
      .getByTestId('application-install')
      .waitFor()
      .catch(async (e: unknown) => {
        await shot(page, 'application-install-missing');
        throw e;
      });

    // New install: the version, the parent group (its sub-group comes with it)
    await page.getByTestId('install-new').click();
    const form = drawer(page);
    await form.locator('#packageId').click();
    await page.locator('.ant-select-item-option').filter({ hasText: 'com.shop.pos', visible: true }).click();
    await form.locator('#groupIds').click();
    await page.locator('.ant-select-tree-node-content-wrapper').filter({ hasText: '门店' }).click();
    await page.keyboard.press('Escape');
    await shot(page, 'application-install-drawer-zh');
    await page.getByTestId('install-submit').click();

    // the detail opens on the new install: rows go downloading (with %) → installing → succeeded, live
    const detail = page.getByTestId('install-detail');
    await detail.waitFor();
    await page.waitForFunction(
      () => /下载中|安装中/.test(document.querySelector('[data-testid="install-detail"]')?.textContent ?? ''),
      null,
      { timeout: 30_000 },
    );
    await shot(page, 'application-install-progress-zh');
    for (const x of specs)
      await expect
        .poll(() => page.getByTestId(`install-row-${x.sn}`).getAttribute('data-state'), { timeout: 60_000 })
        .toBe('succeeded');
    await expect.poll(() => detail.getAttribute('data-state'), { timeout: 15_000 }).toBe('done');
    await expect(detail.getByTestId('install-counts').textContent()).resolves.toContain('成功 3');
    await page.keyboard.press('Escape');

    // the list shows it done; "which devices run version X" finds the three at 2.0.0
    await page.locator('tr[data-state="done"]').first().waitFor({ timeout: 15_000 });
    await settle(page);
    await shot(page, 'application-install-list-zh');
    await page.getByRole('tab', { name: '版本分布' }).click();
    await page.locator('#installed-identifier').click();
    await page.locator('.ant-select-item-option').filter({ hasText: 'com.shop.pos', visible: true }).click();
    const version = page.getByTestId('installed-version-2.0.0');
    await version.waitFor({ timeout: 15_000 });
    await expect(version.textContent()).resolves.toContain('3 台');
    for (const x of specs) await page.getByTestId('installed-devices').getByText(x.sn).waitFor();
    await settle(page);
    await shot(page, 'application-installed-zh');

    // the required apps: com.shop.pos for every device; all three have it, so nothing is sent
    await page.getByRole('tab', { name: '必装应用' }).click();
    const policy = page.getByTestId('install-policy');
    await policy.getByRole('button', { name: '添加应用' }).click();
    await policy.locator('.ant-select').first().click();
    await page.locator('.ant-select-item-option').filter({ hasText: 'com.shop.pos', visible: true }).click();
    await policy.getByTestId('policy-save').click();
    await page.getByText('已保存，0 台设备开始安装').waitFor();
    await policy.locator('tr').filter({ hasText: 'com.shop.pos' }).filter({ hasText: '最新版本 (2.0.0)' }).waitFor();
    await settle(page);
    await shot(page, 'application-required-zh');

    // the device's detail: its installed apps, system apps and the new one
    const [{ id: firstId }] = await query<{ id: number }>(s.databaseUrl, 'SELECT id FROM devices WHERE sn = $1', [
      specs[0].sn,
    ]);
    await page.goto(`${s.url}/#/device/detail?id=${firstId}`);
    const apps = page.getByTestId('device-apps');
    await apps.getByText('门店收银').waitFor({ timeout: 15_000 });
    await apps.getByText('com.shop.pos').waitFor();
    await apps.getByText('com.android.settings').waitFor();
    await settle(page);
    await shot(page, 'application-device-apps-zh');
    expect(errors).toEqual([]);
    await context.close();

    // English, dark theme, and a phone's width
    const en = await newPage(browser, { lang: 'en' });
    await en.context.addInitScript(() => {
      if (!localStorage.getItem('admin-plus-layout'))
        localStorage.setItem('admin-plus-layout', JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }));
    });
    await login(en.page, s, reg.username, reg.password);
    await expectHash(en.page, /^#\/(?!login)/);
    await en.page.goto(`${s.url}/#/application/applicationInstall`);
    await en.page.locator('tr[data-state="done"]').first().waitFor({ timeout: 15_000 });
    await en.page.getByText('Install / upgrade').first().waitFor();
    await settle(en.page);
    await shot(en.page, 'application-install-list-en');
    await en.page.getByRole('tab', { name: 'Required apps' }).click();
    await en.page.getByTestId('install-policy').waitFor();
    await settle(en.page);
    await shot(en.page, 'application-required-en');
    await en.page.setViewportSize({ width: 375, height: 800 });
    await en.page.getByRole('tab', { name: 'Installs' }).click();
    await settle(en.page);
    await shot(en.page, 'application-install-375-en');
    const overflow = await en.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    expect(en.errors).toEqual([]);
    await en.context.close();
  });
});
