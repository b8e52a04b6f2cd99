import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
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

const PAGES = ['bootAnimation', 'customDesktop', 'customWallpaper', 'defaultStartApp', 'topScreenMode', 'appLock'];
const drawer = (page: Page) => page.locator('.ant-drawer-section').filter({ visible: true });
const option = (page: Page, text: string) =>
  page.locator('.ant-select-item-option').filter({ hasText: text, visible: true }).first();
const darkContext = (context: BrowserContext) =>
  context.addInitScript(() => {
    if (!localStorage.getItem('admin-plus-layout'))
      localStorage.setItem('admin-plus-layout', JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }));
  });
// the console keeps visited pages alive (hidden): only the one on screen counts
const deviceRow = (page: Page, sn: string) =>
  page.getByTestId('profile-devices').filter({ visible: true }).locator(`tr[data-sn="${sn}"]`);

/**
 * System customization (issue 16) in the browser: a kiosk profile built on the top-screen page with one of the
 * customer's apps and an exit password, assigned to a group of simulated devices, each device applying it live;
 * one device drifts and the page and its detail say so; a wallpaper that is not an image is refused; every page in
 * zh and en, light and dark.
 */
describe('system customization', () => {
  it(
    'builds a kiosk profile, assigns it to a group, sees it applied and a drift, live',
    { timeout: 400_000 },
    async () => {
      const s = server('plain');
      const { context, page, errors } = await newPage(browser, { lang: 'zh' });
      const reg = await registerThroughUi(page, s, 'individual');
      const tenantId = await tenantOf(s, reg.username);
      await approveAccount(s, reg.username, '张三');

      // three devices in the group "门店" (one in its sub-group "北区"), and the customer's kiosk app
      const specs = makeSpecs(3, { seed: 16, prefix: `SC${Date.now().toString(36).toUpperCase().slice(-6)}` });
      await bindDevices(s, tenantId, specs);
      await groupWithSubgroup(
        s,
        tenantId,
        { group: '门店', subgroup: '北区' },
        { inGroup: specs.slice(0, 2).map((x) => x.sn), inSubgroup: [specs[2].sn] },
      );
      await storedApp(s, tenantId, reg.username, {
        name: '自助打印',
        identifier: 'com.shop.kiosk',
        versionName: '1.0.0',
        versionCode: 100,
        size: 200_000,
        file: 'kiosk.apk',
      });
      fleet = await createFleet({ url: s.mqttUrl, specs, start: false, randomFaults: false });
      for (const d of fleet.devices) await d.powerOn();

      await page.reload();
      await page.goto(`${s.url}/#/systemCustom/topScreenMode`);
      await expectHash(page, /^#\/systemCustom\/topScreenMode/);
      await page.getByTestId('resolution-rule').getByText('设备自身分配的方案优先于任何分组的方案').waitFor();

      // a new profile, its kiosk part: the customer's app pinned, an exit password, saved and published
      await page.getByTestId('profile-new').click();
      await page.locator('#profile_name').fill('门店霸屏');
      await page.locator('#profile_description').fill('只显示自助打印');
      await page.getByTestId('profile-form-ok').click();
      await page.getByTestId('profile-panel').waitFor();
      const editor = page.getByTestId('part-editor');
      await editor.locator('#part-topScreen_pkg').click();
      await option(page, 'com.shop.kiosk').click();
      await editor.getByTestId('exitPassword-input').fill('2468');
      await settle(page);
      await shot(page, 'system-custom-kiosk-editing-zh');
      await editor.getByTestId('part-save-publish').click();
      await page.getByText('已保存并发布，设备将收到配置任务').waitFor();
      await page.getByTestId('profile-version').filter({ hasText: '已发布 v1' }).waitFor();
      // the password is write-only: the page only knows it is set
      await editor.getByTestId('exitPassword-set').waitFor();
      expect(await page.content()).not.toContain('2468');

      // assigned to "门店": the three devices (one through the sub-group) apply v1, live
      await page.getByRole('tab', { name: /分配/ }).click();
      await page.getByTestId('profile-assign').click();
      const assign = drawer(page);
      await assign.locator('#assign_groupIds').click();
      await page.locator('.ant-select-tree-node-content-wrapper').filter({ hasText: '门店' }).click();
      await page.keyboard.press('Escape');
      await page.getByTestId('assign-submit').click();
      await page.getByText(/已分配：影响 3 台设备/).waitFor();
      await page.getByTestId('profile-targets').getByText('门店').waitFor();
      await page.getByRole('tab', { name: /设备/ }).click();
      for (const x of specs)
        await expect.poll(() => deviceRow(page, x.sn).getAttribute('data-state'), { timeout: 60_000 }).toBe('applied');
      for (const x of specs) await deviceRow(page, x.sn).getByTestId('applied-version').getByText('v1').waitFor();
      await deviceRow(page, specs[2].sn).getByText('分组：门店').waitFor();
      await settle(page);
      await shot(page, 'system-custom-kiosk-applied-zh');

      // one device changes its configuration locally: the page shows the drift without a reload
      await fleet.get(specs[0].sn).driftProfile();
      await expect
        .poll(() => deviceRow(page, specs[0].sn).getByTestId('drift').getAttribute('data-drift'), { timeout: 30_000 })
        .toBe('true');
      await deviceRow(page, specs[0].sn)
        .getByText(/偏离：/)
        .waitFor();
      await settle(page);
      await shot(page, 'system-custom-drift-zh');

      // the device's detail: its profile, from the group, v1 applied, drifted
      const [{ id: deviceId }] = await query<{ id: number }>(s.databaseUrl, 'SELECT id FROM devices WHERE sn = $1', [
        specs[0].sn,
      ]);
      await page.goto(`${s.url}/#/device/detail?id=${deviceId}`);
      const card = page.getByTestId('device-profile');
      await card.getByText('门店霸屏').waitFor({ timeout: 15_000 });
      await card.getByTestId('device-profile-source').getByText('分组：门店').waitFor();
      await card.getByTestId('device-profile-applied').getByText('v1').waitFor();
      await expect.poll(() => card.getAttribute('data-drift')).toBe('true');
      await card.scrollIntoViewIfNeeded();
      await settle(page);
      await shot(page, 'system-custom-device-card-zh');

      // a "wallpaper" that is text named .png: the upload is refused with the server's reason
      const profileId = await page
        .getByTestId('device-profile-name')
        .getAttribute('href')
        .then((h) => /profile=(\d+)/.exec(h ?? '')?.[1]);
      expect(profileId).toBeTruthy();
      await page.goto(`${s.url}/#/systemCustom/customWallpaper?profile=${profileId}`);
      await page.getByTestId('wallpaper-upload').waitFor();
      const fake = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-wp-')), 'wallpaper.png');
      fs.writeFileSync(fake, 'this is not a picture\n'.repeat(50));
      await page.getByTestId('wallpaper-upload').locator('input[type=file]').setInputFiles(fake);
      await page
        .getByTestId('upload-error')
        .getByText(/上传被拒绝/)
        .waitFor({ timeout: 15_000 });
      await expect(page.getByTestId('upload-error').textContent()).resolves.toMatch(/定制文件只能是|内容/);
      await settle(page);
      await shot(page, 'system-custom-wallpaper-refused-zh');
      // a real picture (drawn in the browser, 720×1280): uploaded, previewed with its fit, saved into the draft
      const png = await page.evaluate(() => {
        const c = document.createElement('canvas');
        c.width = 720;
        c.height = 1280;
        const g = c.getContext('2d')!;
        const grad = g.createLinearGradient(0, 0, 720, 1280);
        grad.addColorStop(0, '#1677ff');
        grad.addColorStop(1, '#13c2c2');
        g.fillStyle = grad;
        g.fillRect(0, 0, 720, 1280);
        g.fillStyle = '#fff';
        g.font = 'bold 96px sans-serif';
        g.fillText('SHOP', 220, 640);
        return c.toDataURL('image/png').split(',')[1];
      });
      const picture = path.join(path.dirname(fake), 'brand.png');
      fs.writeFileSync(picture, Buffer.from(png, 'base64'));
      await page.getByTestId('wallpaper-upload').locator('input[type=file]').setInputFiles(picture);
      await page
        .getByTestId('wallpaper-file')
        .getByText(/brand\.png/)
        .waitFor({ timeout: 15_000 });
      await expect
        .poll(() => page.getByTestId('wallpaper-preview').evaluate((e) => getComputedStyle(e).backgroundImage))
        .toMatch(/^url\(/);
      await page.locator('.ant-radio-button-wrapper').filter({ hasText: '适应', visible: true }).click();
      await page.locator('[data-testid="part-editor"][data-part="wallpaper"]').getByTestId('part-save').click();
      await page.getByText('已保存为草稿，发布后下发到设备').waitFor();
      await page
        .locator('[data-testid="part-editor"][data-part="wallpaper"]')
        .getByTestId('part-state')
        .getByText('已设置')
        .waitFor();
      await settle(page);
      await shot(page, 'system-custom-wallpaper-saved-zh');

      // the desktop: the kiosk app on the home screen, saved as a draft (devices keep v1 until it is published)
      await page.goto(`${s.url}/#/systemCustom/customDesktop?profile=${profileId}`);
      const desktop = page.locator('[data-testid="part-editor"][data-part="desktop"]');
      await desktop.locator('#part-desktop_apps').click();
      await option(page, 'com.shop.kiosk').click();
      await page.keyboard.press('Escape');
      await desktop.getByTestId('desktop-order').getByText('自助打印 (com.shop.kiosk)').waitFor();
      await desktop.getByTestId('desktop-preview').getByText('自助打印').waitFor();
      await desktop.getByTestId('part-save').click();
      await page.getByText('已保存为草稿，发布后下发到设备').waitFor();
      await page.getByTestId('profile-header').filter({ visible: true }).getByText('草稿').waitFor();

      // every page in zh, light
      for (const p of PAGES) {
        await page.goto(`${s.url}/#/systemCustom/${p}?profile=${profileId}`);
        await page.locator(`[data-testid="system-custom"][data-page="${p}"] [data-testid="profile-panel"]`).waitFor();
        await settle(page);
        await shot(page, `system-custom-${p}-zh`);
      }
      expect(errors).toEqual([]);
      await context.close();

      // en, dark: every page, the device card, and a phone's width
      const en = await newPage(browser, { lang: 'en' });
      await darkContext(en.context);
      await login(en.page, s, reg.username, reg.password);
      await expectHash(en.page, /^#\/(?!login)/);
      for (const p of PAGES) {
        await en.page.goto(`${s.url}/#/systemCustom/${p}?profile=${profileId}`);
        await en.page
          .locator(`[data-testid="system-custom"][data-page="${p}"] [data-testid="profile-panel"]`)
          .waitFor();
        await en.page
          .locator(`[data-testid="system-custom"][data-page="${p}"] [data-testid="resolution-rule"]`)
          .getByText("A device's own assignment beats any group's")
          .waitFor();
        await settle(en.page);
        await shot(en.page, `system-custom-${p}-en-dark`);
      }
      await en.page.getByRole('tab', { name: /Devices/ }).click();
      await deviceRow(en.page, specs[0].sn)
        .getByText(/Drifted:/)
        .waitFor({ timeout: 15_000 });
      await settle(en.page);
      await shot(en.page, 'system-custom-devices-en-dark');
      await en.page.goto(`${s.url}/#/device/detail?id=${deviceId}`);
      await en.page.getByTestId('device-profile').getByText('Group: 门店').waitFor({ timeout: 15_000 });
      await en.page.getByTestId('device-profile').scrollIntoViewIfNeeded();
      await settle(en.page);
      await shot(en.page, 'system-custom-device-card-en-dark');
      await en.page.setViewportSize({ width: 375, height: 800 });
      await en.page.goto(`${s.url}/#/systemCustom/topScreenMode?profile=${profileId}`);
      await en.page.getByTestId('profile-panel').filter({ visible: true }).waitFor();
      await settle(en.page);
      await shot(en.page, 'system-custom-topScreenMode-en-375');
      const overflow = await en.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(1);
      expect(en.errors).toEqual([]);
      await en.context.close();
    },
  );
});
