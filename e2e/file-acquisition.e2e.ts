import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createDb } from '../apps/server/src/db/database.ts';
import { createFleet, type Fleet } from '../apps/device-sim/src/fleet.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs, type DeviceSpec } from '../apps/device-sim/src/specs.ts';
import { launch, newPage, query, server, settle, shot } from './browser.ts';
import { approveAccount, expectHash, login, registerThroughUi } from './flows.ts';

let browser: Browser;
let fleet: Fleet | undefined;
let spec: DeviceSpec;
let account: { username: string; password: string };

/** A customer with one simulated printer, switched off for now. */
beforeAll(async () => {
  browser = await launch();
  const s = server('plain');
  const { context, page } = await newPage(browser, { lang: 'zh' });
  account = await registerThroughUi(page, s, 'individual');
  await context.close();
  await approveAccount(s, account.username, '张三');
  [spec] = makeSpecs(1, { seed: 15, prefix: `FAE${Date.now().toString(36).toUpperCase().slice(-6)}` });
  fleet = await createFleet({ url: s.mqttUrl, specs: [spec], heartbeatS: 5, randomFaults: false, start: false });
  // slow and in small chunks, so the upload's progress can be seen
  fleet.devices[0].uploadChunkBytes = 16;
  fleet.devices[0].uploadBytesPerSecond = 40;
  const db = createDb(s.databaseUrl, 2);
  try {
    await registerInDb(db, [spec]);
    const [{ id: tenantId }] = await query<{ id: number }>(
      s.databaseUrl,
      'SELECT tenant_id AS id FROM users WHERE username = $1',
      [account.username],
    );
    await bindInDb(db, Number(tenantId), [spec.sn], { name: () => '前台打印机' });
  } finally {
    await db.destroy();
  }
}, 120_000);
afterAll(async () => {
  await fleet?.stop().catch(() => {});
  await browser?.close();
});

async function openPage(page: Page) {
  await login(page, server('plain'), account.username, account.password);
  await expectHash(page, /^#\/device\/index/);
  await page.goto(`${server('plain').url}/#/application/fileAcquisition`);
  await page.getByTestId('file-table').waitFor({ timeout: 15_000 });
}

describe('file acquisition', () => {
  it(
    'asks an offline printer for its print log, sees it arrive live once it is on, and downloads it',
    { timeout: 180_000 },
    async () => {
      const { context, page, errors } = await newPage(browser, { lang: 'zh', width: 1366, height: 860 });
      await openPage(page);
      await page.getByRole('heading', { name: '文件获取' }).waitFor();

      await page.getByTestId('file-ask').click();
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      // a path outside the allowed folders is refused in the form
      await dialog.getByText('路径', { exact: true }).first().click();
      await page.getByTestId('file-request-path').fill('/etc/passwd');
      await page.getByRole('button', { name: '发送请求' }).click();
      await page.getByText('路径不在允许的目录内').waitFor();
      await dialog.getByText('预设文件', { exact: true }).first().click();
      await page.getByTestId('file-request-devices').click();
      await page.keyboard.type(spec.sn);
      await page.locator('.ant-select-item-option', { hasText: spec.sn }).click();
      await page.keyboard.press('Escape');
      await settle(page);
      await shot(page, 'file-acquisition-ask-zh');
      await page.getByRole('button', { name: '发送请求' }).click();
      await page.getByText('已向 1 台设备发送请求').waitFor();

      const table = page.getByTestId('file-table');
      await table.getByText('等待设备').waitFor();
      await table.getByText('/data/log/print/*.log').waitFor();
      await settle(page);
      await shot(page, 'file-acquisition-waiting-zh');

      // the printer comes on: it gets the request on its hello and uploads, and the page follows without a reload
      await fleet!.start();
      await page.locator('[data-testid^="file-progress-"]').waitFor({ timeout: 30_000 });
      await table.getByText('已就绪').waitFor({ timeout: 60_000 });
      await table.getByText('print.log').waitFor();
      await settle(page);
      await shot(page, 'file-acquisition-ready-zh');

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.locator('[data-testid^="file-download-"]').first().click(),
      ]);
      expect(download.suggestedFilename()).toBe('print.log');
      const text = fs.readFileSync((await download.path())!, 'utf8');
      expect(text).toMatch(/no jobs printed since boot|job /);
      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it('shows the list in en, dark, and on a phone', { timeout: 120_000 }, async () => {
    const { context, page, errors } = await newPage(browser, { lang: 'en', width: 1366, height: 860 });
    await context.addInitScript(() => {
      if (!localStorage.getItem('admin-plus-layout'))
        localStorage.setItem('admin-plus-layout', JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }));
    });
    await openPage(page);
    await page.getByRole('heading', { name: 'File acquisition' }).waitFor();
    await page.getByTestId('file-table').getByText('Ready').waitFor({ timeout: 15_000 });
    await settle(page);
    await shot(page, 'file-acquisition-ready-en-dark');
    await page.setViewportSize({ width: 375, height: 800 });
    await settle(page);
    await shot(page, 'file-acquisition-phone-en');
    expect(errors).toEqual([]);
    await context.close();
  });
});
