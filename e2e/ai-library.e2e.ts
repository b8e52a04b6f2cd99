import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createDb } from '../apps/server/src/db/database.ts';
import { createFleet, type Fleet } from '../apps/device-sim/src/fleet.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs } from '../apps/device-sim/src/specs.ts';
import { photoImage } from '../apps/server/test/ocr-images.ts';
import { launch, newPage, query, server, settle, shot, uniqueName } from './browser.ts';
import { approveAccount, expectHash, login, registerThroughUi } from './flows.ts';

let browser: Browser;
let fleet: Fleet | undefined;
let dir = '';
beforeAll(async () => {
  browser = await launch();
  dir = await mkdtemp(path.join(tmpdir(), 'cpc-ai-e2e-'));
});
afterAll(async () => {
  await fleet?.stop().catch(() => {});
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const CLOUD = '/aiLibrary/cloud';
const darkContext = (context: BrowserContext) =>
  context.addInitScript(() => {
    if (!localStorage.getItem('admin-plus-layout'))
      localStorage.setItem('admin-plus-layout', JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }));
  });
const squash = (s: string | null) => (s ?? '').replace(/\s+/g, '');
const detailText = (page: Page) =>
  page.locator(`[data-page-path="${CLOUD}"] [data-testid="ocr-text"]`).filter({ visible: true });

describe('the AI library: cloud text recognition', () => {
  it(
    'uploads a photo of a document, shows the recognised text beside it, prints it on a printer, in zh and en',
    { timeout: 400_000 },
    async () => {
      const s = server('plain');
      const { context, page, errors } = await newPage(browser, { lang: 'zh' });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.url });
      const reg = await registerThroughUi(page, s, 'individual');
      await approveAccount(s, reg.username, '李四');
      const [{ id: tenantId }] = await query<{ id: number }>(
        s.databaseUrl,
        'SELECT tenant_id AS id FROM users WHERE username = $1',
        [reg.username],
      );
      // a printer of the account, online, and an app key the receipt is printed under
      const specs = makeSpecs(1, { seed: 15, prefix: uniqueName('OCR').toUpperCase() });
      const db = createDb(s.databaseUrl, 2);
      try {
        await registerInDb(db, specs);
        await bindInDb(db, Number(tenantId), [specs[0].sn], { name: () => '前台打印机' });
      } finally {
        await db.destroy();
      }
      await query(s.databaseUrl, `INSERT INTO app_keys (tenant_id, name, app_id, secret) VALUES ($1, '门店', $2, $3)`, [
        tenantId,
        `ak${randomBytes(8).toString('hex')}`,
        randomBytes(24).toString('hex'),
      ]);
      fleet = await createFleet({
        url: s.mqttUrl,
        specs,
        start: false,
        randomFaults: false,
        stepMs: 200,
        printLineMs: 5,
      });
      await fleet.powerOn(specs[0].sn);

      const image = path.join(dir, '收据照片.jpg');
      await writeFile(image, await photoImage());

      await page.reload();
      await page.goto(`${s.url}/#${CLOUD}`);
      await expectHash(page, /^#\/aiLibrary\/cloud/);
      await page.getByText('还没有识别任务').waitFor({ timeout: 15_000 });
      await settle(page);
      await shot(page, 'ai-cloud-empty-zh');

      await page.locator(`[data-page-path="${CLOUD}"] input[type=file]`).setInputFiles(image);
      await page.getByText('已提交识别').waitFor({ timeout: 15_000 });
      // the job goes queued → running → done live, and the text appears beside the image
      await detailText(page).waitFor({ timeout: 120_000 });
      const text = squash(await detailText(page).textContent());
      expect(text).toContain('云打印控制台');
      expect(text).toContain('CloudPrintReceipt');
      expect(text).toContain('Order12345');
      await page.locator('[data-testid="ocr-job"]', { hasText: '已完成' }).first().waitFor();

      // copy
      await page.getByRole('button', { name: /复制文字/ }).click();
      await expect
        .poll(async () => squash(await page.evaluate(() => navigator.clipboard.readText())))
        .toContain('Order12345');

      // print on the printer
      await page.locator(`[data-page-path="${CLOUD}"] .ant-select`).filter({ visible: true }).click();
      await page.locator('.ant-select-item-option', { hasText: '前台打印机' }).click();
      await page.getByRole('button', { name: /打印小票/ }).click();
      await page.getByText('已发送到打印机').waitFor();
      const printed = await expect
        .poll(() => fleet!.devices[0].printed.length, { timeout: 30_000 })
        .toBeGreaterThan(0)
        .then(() => fleet!.devices[0].printed[0]);
      expect(squash(printed.lines.join(''))).toContain('Order12345');
      expect(squash(printed.lines.join(''))).toContain('文字识别');
      await settle(page);
      await shot(page, 'ai-cloud-done-zh-light');
      await page.setViewportSize({ width: 375, height: 780 });
      await settle(page);
      await shot(page, 'ai-cloud-done-zh-mobile');
      expect(errors).toEqual([]);
      await context.close();

      // English, dark
      const en = await newPage(browser, { lang: 'en' });
      await darkContext(en.context);
      await login(en.page, s, reg.username, reg.password);
      await expectHash(en.page, /^#\/(?!login)/);
      await en.page.goto(`${s.url}/#${CLOUD}`);
      await detailText(en.page).waitFor({ timeout: 30_000 });
      await en.page.getByRole('button', { name: /Print receipt/ }).waitFor();
      await en.page.locator('[data-testid="ocr-job"]', { hasText: 'Done' }).first().waitFor();
      await settle(en.page);
      await shot(en.page, 'ai-cloud-done-en-dark');
      expect(en.errors).toEqual([]);
      await en.context.close();
    },
  );

  it(
    'uploads an AI model package with its framework, inputs and outputs, and lists it, in zh and en',
    { timeout: 300_000 },
    async () => {
      const s = server('plain');
      const { page, errors } = await newPage(browser, { lang: 'zh' });
      const reg = await registerThroughUi(page, s, 'individual');
      await approveAccount(s, reg.username, '王五');
      const file = path.join(dir, 'detector.onnx');
      await writeFile(file, randomBytes(300_000));
      await page.reload();
      await page.goto(`${s.url}/#/aiLibrary/terminal`);
      await expectHash(page, /^#\/aiLibrary\/terminal/);
      await page.getByText('还没有模型').waitFor({ timeout: 15_000 });
      await page.getByRole('button', { name: /上传模型/ }).click();
      const drawer = page.locator('.ant-drawer-section').filter({ visible: true });
      await drawer.locator('input[type=file]').setInputFiles(file);
      await drawer.locator('#aiModel_name').fill('人脸检测');
      await drawer.locator('#aiModel_versionName').fill('1.2.0');
      await drawer.locator('#aiModel_inputs').fill('1×3×320×320 RGB');
      await drawer.locator('#aiModel_outputs').fill('boxes, scores');
      const save = drawer.getByRole('button', { name: /保\s*存/ });
      await expect.poll(() => save.isEnabled(), { timeout: 60_000 }).toBe(true);
      await save.click();
      await page.getByText('模型已保存').waitFor({ timeout: 15_000 });
      const row = page.locator('tr', { hasText: '人脸检测' }).filter({ visible: true });
      await row.waitFor();
      expect(await row.textContent()).toContain('ONNX');
      expect(await row.textContent()).toContain('1×3×320×320 RGB → boxes, scores');
      expect(await row.textContent()).toContain('所有机型');
      await settle(page);
      await shot(page, 'ai-terminal-zh');
      await page.evaluate(() => localStorage.setItem('language', 'en'));
      await page.reload();
      await page.locator('tr', { hasText: 'Any model' }).filter({ visible: true }).waitFor({ timeout: 15_000 });
      await settle(page);
      await shot(page, 'ai-terminal-en');
      await page.setViewportSize({ width: 375, height: 780 });
      await settle(page);
      await shot(page, 'ai-terminal-en-mobile');
      expect(errors).toEqual([]);
    },
  );
});
