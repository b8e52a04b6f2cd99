import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createFleet, type Fleet } from '../apps/device-sim/src/fleet.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs } from '../apps/device-sim/src/specs.ts';
import { createDb } from '../apps/server/src/db/database.ts';
import { launch, newPage, query, server, settle, shot } from './browser.ts';
import { approveAccount, expectHash, login, registerThroughUi } from './flows.ts';

let browser: Browser;
let fleet: Fleet | undefined;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await fleet?.stop();
  await browser?.close();
});

const count = (page: Page, state: string) =>
  page.locator(`[data-testid="count-${state}"] .ant-statistic-content-value`).first().textContent();

describe('firmware upgrades in the console', () => {
  it(
    'creates a release against simulated devices, watches it move live, promotes it; zh and en',
    { timeout: 300_000 },
    async () => {
      const s = server('plain');
      const { context, page, errors } = await newPage(browser, { lang: 'zh' });
      const reg = await registerThroughUi(page, s, 'individual');
      await approveAccount(s, reg.username, '张三');
      const [{ tenant_id: tenantId }] = await query<{ tenant_id: number }>(
        s.databaseUrl,
        'SELECT tenant_id FROM users WHERE username = $1',
        [reg.username],
      );
      // 20 simulated printers of the account, and a firmware image for their model
      const specs = makeSpecs(20, { seed: 15, prefix: `UPE${Date.now().toString(36).toUpperCase().slice(-5)}` });
      const db = createDb(s.databaseUrl, 2);
      try {
        await registerInDb(db, specs);
        await bindInDb(
          db,
          Number(tenantId),
          specs.map((x) => x.sn),
        );
      } finally {
        await db.destroy();
      }
      // the firmware image, uploaded in the page below (chunked, its SHA-256 checked by the server)
      const firmwareFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-fw-')), 'cpsim-2.1.0.bin');
      fs.writeFileSync(firmwareFile, randomBytes(300_000));
      // a realistic pace: 150 kB/s, so a download takes about two seconds and the dashboard can be seen moving
      fleet = await createFleet({
        url: s.mqttUrl,
        specs,
        start: false,
        rebootDelayMs: 800,
        randomFaults: false,
        upgrade: { bytesPerSecond: 150_000, installStepMs: 150 },
      });
      await fleet.start();

      // the guard loaded this user as unauthenticated: a reload makes it ask again
      await page.reload();
      await page.goto(`${s.url}/#/upgrade/deviceUpgrade`);
      await expectHash(page, /^#\/upgrade\/deviceUpgrade/);
      await page.getByTestId('upload-firmware').click();
      const upload = page.locator('.ant-drawer').filter({ visible: true });
      await upload.locator('input[type=file]').setInputFiles(firmwareFile);
      await upload.locator('#firmware_name').fill('CPSIM 固件');
      await upload.locator('#firmware_versionName').fill('2.1.0');
      const fits = upload.locator('#firmware_models');
      await fits.fill('CPSIM-58');
      await fits.press('Enter');
      await upload.locator('#firmware_notes').fill('修复若干问题');
      await expect.poll(() => upload.getByTestId('firmware-save').isEnabled(), { timeout: 30_000 }).toBe(true);
      await settle(page);
      await shot(page, 'upgrade-firmware-upload-zh');
      await upload.getByTestId('firmware-save').click();
      await page.getByText('固件已上传', { exact: true }).waitFor({ timeout: 15_000 });
      await page.getByText('CPSIM 固件').first().waitFor({ timeout: 15_000 });
      await page.getByTestId('new-release').click();
      const drawer = page.locator('.ant-drawer').filter({ visible: true });
      await drawer.getByTestId('release-name').fill('CPSIM 2.1.0 灰度');
      await drawer.getByTestId('release-firmware').click();
      await page.locator('.ant-select-item-option', { hasText: '2.1.0' }).first().click();
      const tags = drawer.getByTestId('release-targets').locator('input');
      await tags.fill('CPSIM-58');
      await tags.press('Enter');
      // the live count of matched devices
      await drawer.getByTestId('release-matched').filter({ hasText: '将升级 20 台设备' }).waitFor({ timeout: 15_000 });
      await drawer.locator('#throttle').fill('5');
      await settle(page);
      await shot(page, 'upgrade-drawer-zh');
      await drawer.getByTestId('release-submit').click();

      // the release's dashboard: wave 1 (2 devices of 20) runs and waits for a promote
      await expectHash(page, /^#\/upgrade\/taskDetail\?id=\d+/);
      await page.getByTestId('release-counts').waitFor({ timeout: 15_000 });
      await expect.poll(() => count(page, 'verified'), { timeout: 60_000 }).toBe('2');
      await page.getByTestId('release-state').filter({ hasText: '等待推进' }).waitFor({ timeout: 15_000 });
      await settle(page);
      await shot(page, 'upgrade-detail-waiting-zh');

      // promote: wave 2 starts; the counts move without a reload
      await page.getByTestId('release-promote').click();
      await page.locator('.ant-popconfirm .ant-btn-primary').filter({ visible: true }).click();
      // running, or already done when wave 2's devices are quick
      await page
        .getByTestId('release-state')
        .filter({ hasText: /进行中|已完成/ })
        .waitFor({ timeout: 30_000 });
      await expect.poll(async () => Number(await count(page, 'verified')), { timeout: 60_000 }).toBeGreaterThan(4);
      await settle(page);
      await shot(page, 'upgrade-detail-running-zh');
      await page.getByTestId('release-state').filter({ hasText: '已完成' }).waitFor({ timeout: 120_000 });
      expect(await count(page, 'verified')).toBe('20');
      await settle(page);
      await shot(page, 'upgrade-detail-done-zh');

      // the release list
      await page.goto(`${s.url}/#/upgrade/upgradeTask`);
      await page.getByTestId('release-table').getByText('CPSIM 2.1.0 灰度').waitFor({ timeout: 15_000 });
      await settle(page);
      await shot(page, 'upgrade-list-zh');
      // the device's detail: its firmware history names the release
      const [{ id: deviceId }] = await query<{ id: number }>(s.databaseUrl, 'SELECT id FROM devices WHERE sn = $1', [
        specs[0].sn,
      ]);
      await page.goto(`${s.url}/#/device/detail?id=${deviceId}`);
      const history = page.getByTestId('firmware-history');
      await history.getByText('1.4.2 → 2.1.0').waitFor({ timeout: 15_000 });
      await history.getByText('升级发布：CPSIM 2.1.0 灰度').waitFor();
      await history.scrollIntoViewIfNeeded();
      await settle(page);
      await shot(page, 'upgrade-device-history-zh');
      expect(errors).toEqual([]);
      await context.close();

      // en, and a phone's width
      const en = await newPage(browser, { lang: 'en', width: 375, height: 800 });
      await login(en.page, s, reg.username, reg.password);
      await en.page.waitForURL(/#\/(?!login)/, { timeout: 20_000 });
      await en.page.goto(`${s.url}/#/upgrade/upgradeTask`);
      await en.page.getByText('Completed').first().waitFor({ timeout: 15_000 });
      await en.page.getByTestId('release-table').getByText('CPSIM 2.1.0 灰度').first().click();
      await en.page.getByTestId('release-counts').waitFor({ timeout: 15_000 });
      await en.page.getByText('Devices per state').waitFor();
      await settle(en.page);
      await shot(en.page, 'upgrade-detail-en-375');
      expect(en.errors).toEqual([]);
      await en.context.close();
    },
  );
});
