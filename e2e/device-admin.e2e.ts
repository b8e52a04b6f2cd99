import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launch, newPage, query, server, shot, uniqueName, settle } from './browser.ts';
import { expectHash, login } from './flows.ts';

type Server = ReturnType<typeof server>;

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

async function signInAsAdmin(page: Page, s: Server) {
  await login(page, s, 'admin', s.adminPassword);
  await expectHash(page, /^#\/device\/index/);
}

async function open(page: Page, s: Server, path: '/system/deviceModel' | '/system/deviceRegistry') {
  await page.goto(`${s.url}/#${path}`);
  await expectHash(page, new RegExp(`^#${path}`));
  await page.locator(`[data-page-path="${path}"] .ant-table`).waitFor();
}

/** The text of a file the page offered for download. */
async function downloaded(page: Page, click: () => Promise<void>): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  const file = await download.path();
  return { name: download.suggestedFilename(), text: fs.readFileSync(file, 'utf8').replace(/^\ufeff/, '') };
}

const csvFile = (name: string, lines: string[]) => ({
  name,
  mimeType: 'text/csv',
  buffer: Buffer.from(`${lines.join('\r\n')}\r\n`),
});
const dialog = (page: Page, title: string | RegExp) =>
  page.locator('.ant-modal').filter({ has: page.locator('.ant-modal-title', { hasText: title }) });

describe('device models and factory registration (staff)', () => {
  it(
    'creates a model, registers a device, imports a CSV after fixing its bad rows, and lists them all',
    { timeout: 240_000 },
    async () => {
      const s = server('plain');
      const { context, page, errors } = await newPage(browser, { lang: 'zh' });
      await signInAsAdmin(page, s);
      const code = uniqueName('E2E-').toUpperCase();
      const prefix = uniqueName('FAB').toUpperCase();

      // A new model in the catalogue.
      await open(page, s, '/system/deviceModel');
      await page.getByRole('button', { name: /新建型号/ }).click();
      const form = dialog(page, '新建设备型号');
      await form.locator('#deviceModel_code').fill(code);
      await form.locator('#deviceModel_name').fill('端到端测试打印机');
      await form.locator('#deviceModel_capabilities').fill('wallpaper');
      await form.locator('#deviceModel_capabilities').press('Enter');
      await form.locator('.ant-modal-title').click(); // close the tag suggestions
      await page.locator('.ant-select-dropdown').filter({ visible: true }).waitFor({ state: 'hidden' });
      await shot(page, 'device-model-form-zh');
      await form.getByRole('button', { name: /创\s*建/ }).click();
      await page.getByText(`型号 ${code} 已创建`).waitFor();
      const modelRow = page.locator('tr', { hasText: code });
      await modelRow.getByText('wallpaper').waitFor();
      await modelRow.getByText('端到端测试打印机').waitFor();

      // One device registered by hand: its bind key and secret are shown once, and can be downloaded.
      await open(page, s, '/system/deviceRegistry');
      await page.getByRole('button', { name: /登记设备/ }).click();
      const register = dialog(page, '登记设备');
      await register.locator('#registerDevice_sn').fill(`${prefix}-0001`);
      await register.locator('#registerDevice_model').fill(code);
      await register.locator('#registerDevice_imei').fill('12345');
      await register.getByRole('button', { name: /登\s*记/ }).click();
      await register.getByText('IMEI 须为 15 位数字且校验位正确').waitFor();
      await register.locator('#registerDevice_imei').fill('');
      await register.getByRole('button', { name: /登\s*记/ }).click();
      const single = dialog(page, '已登记 1 台设备：绑定码与密钥');
      await single.getByText('绑定码和设备密钥只显示这一次').waitFor();
      const singleRow = single.locator('tr', { hasText: `${prefix}-0001` });
      const bindKey = (await singleRow.locator('td').nth(2).innerText()).trim();
      expect(bindKey).toMatch(/^[A-Z2-9]{12}$/);
      const keys = await downloaded(page, () => single.getByRole('button', { name: /下载 CSV/ }).click());
      expect(keys.name).toMatch(/^device-keys-\d{8}-\d{6}\.csv$/);
      expect(keys.text.split('\r\n')[0]).toBe('sn,model,bind_key,secret,iccid,imei');
      expect(keys.text.split('\r\n')[1]).toMatch(
        new RegExp(`^${prefix}-0001,${code},${bindKey},[A-Za-z0-9_-]{16,},\\d{20},\\d{15}$`),
      );
      await single
        .locator('.ant-modal-footer')
        .getByRole('button', { name: /^关\s*闭$/ })
        .click();
      await single.waitFor({ state: 'hidden' });
      // the server keeps only a hash of the key
      const [stored] = await query<{ bind_key_hash: string }>(
        s.databaseUrl,
        'SELECT bind_key_hash FROM devices WHERE sn = $1',
        [`${prefix}-0001`],
      );
      expect(stored.bind_key_hash).not.toContain(bindKey);

      // The model is in use now: the server refuses to delete it, and the page says why.
      await open(page, s, '/system/deviceModel');
      // the kept tab asks for the list again when it is shown: the count follows the registration
      await expect.poll(() => page.locator('tr', { hasText: code }).locator('td').nth(5).textContent()).toBe('1');
      await page.locator('tr', { hasText: code }).getByRole('button', { name: /删除/ }).click();
      await page
        .locator('.ant-modal-confirm')
        .getByText('有 1 台已登记设备使用这个型号，使用中的型号不能删除。')
        .waitFor();
      await page
        .locator('.ant-modal-confirm')
        .getByRole('button', { name: /^删\s*除$/ })
        .click();
      await page.locator('.ant-message').getByText('有 1 台已登记设备使用这个型号，不能删除').waitFor();
      expect(await query(s.databaseUrl, 'SELECT id FROM device_models WHERE code = $1', [code])).toHaveLength(1);

      // A CSV import: the template first, then a file with bad rows, refused as a whole with every problem named.
      await open(page, s, '/system/deviceRegistry');
      await page.getByRole('button', { name: /导入 CSV/ }).click();
      const importer = dialog(page, '导入 CSV');
      const template = await downloaded(page, () => importer.getByRole('button', { name: /下载模板/ }).click());
      expect(template).toEqual({ name: 'device-import-template.csv', text: 'sn,model,bind_key,secret,iccid,imei\r\n' });
      await importer
        .locator('input[type=file]')
        .setInputFiles(
          csvFile('factory.csv', [
            'sn,model,bind_key,secret,iccid,imei',
            `${prefix}-0002,${code},,,,`,
            `x!,${code},,,,`,
            `${prefix}-0004,NO-SUCH-MODEL,,,,`,
            `${prefix}-0001,${code},,,,`,
          ]),
        );
      await importer.getByRole('button', { name: /^导\s*入$/ }).click();
      const rowErrors = importer.getByTestId('import-row-errors');
      await rowErrors.getByText('未导入任何设备：3 行有 3 个问题，修改后重新导入').waitFor();
      const cells = await rowErrors
        .locator('tbody tr')
        .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
      expect(cells).toEqual([
        ['3', 'sn', '序列号须为 4-32 位字母、数字、- 或 _，以字母或数字开头'],
        ['4', 'model', '没有编码为“NO-SUCH-MODEL”的型号'],
        ['5', 'sn', '已登记过'],
      ]);
      expect(await query(s.databaseUrl, 'SELECT id FROM devices WHERE sn = $1', [`${prefix}-0002`])).toHaveLength(0);
      await settle(page);
      await shot(page, 'device-registry-import-errors-zh');

      // Fixed, the same import goes through and shows the generated keys once.
      await importer
        .locator('input[type=file]')
        .setInputFiles(
          csvFile('factory-fixed.csv', [
            'sn,model,bind_key,secret,iccid,imei',
            `${prefix}-0002,${code},,,,`,
            `${prefix}-0003,${code.toLowerCase()},ABCDEFGH23,,,`,
            `${prefix}-0004,${code},,,,`,
          ]),
        );
      await importer.getByTestId('import-row-errors').waitFor({ state: 'detached' });
      // the new file is the one chosen, and the import button takes it
      await importer.locator('.ant-upload-list').getByText('factory-fixed.csv').waitFor();
      const importButton = importer.locator('.ant-modal-footer .ant-btn-primary');
      await expect.poll(() => importButton.innerText()).toMatch(/^导\s*入$/);
      await expect.poll(() => importButton.isEnabled()).toBe(true);
      await importButton.click();
      const imported = dialog(page, '已登记 3 台设备：绑定码与密钥');
      await imported.getByTestId('keys-warning').getByText('关闭后将无法再次查看').waitFor();
      expect(await imported.locator('tbody tr.ant-table-row').count()).toBe(3);
      await imported
        .locator('tr', { hasText: `${prefix}-0003` })
        .getByText('ABCDEFGH23')
        .waitFor();
      await settle(page);
      await shot(page, 'device-registry-keys-zh');
      // Closing before the download asks first; after it, the keys are gone for good.
      await imported
        .locator('.ant-modal-footer')
        .getByRole('button', { name: /^关\s*闭$/ })
        .click();
      await page.locator('.ant-modal-confirm-title', { hasText: '还没有下载绑定码和密钥' }).waitFor();
      await page
        .locator('.ant-modal-confirm')
        .getByRole('button', { name: /返回下载/ })
        .click();
      const batch = await downloaded(page, () => imported.getByRole('button', { name: /下载 CSV/ }).click());
      expect(
        batch.text
          .trim()
          .split('\r\n')
          .slice(1)
          .map((l) => l.split(',')[0]),
      ).toEqual([`${prefix}-0002`, `${prefix}-0003`, `${prefix}-0004`]);
      await imported
        .locator('.ant-modal-footer')
        .getByRole('button', { name: /^关\s*闭$/ })
        .click();
      await imported.waitFor({ state: 'detached' });
      expect(await page.getByText('ABCDEFGH23').count()).toBe(0);

      // The registry lists all four, unbound, under the new model.
      const search = page.getByPlaceholder('搜索序列号、ICCID、IMEI 或客户');
      await search.fill(prefix);
      await search.press('Enter');
      const table = page.locator('[data-page-path="/system/deviceRegistry"] .ant-table');
      await expect.poll(() => table.locator('tbody tr.ant-table-row').count()).toBe(4);
      for (const n of ['0001', '0002', '0003', '0004']) {
        const row = table.locator('tr', { hasText: `${prefix}-${n}` });
        await row.getByText('未绑定').waitFor();
        await row.getByText(code).waitFor();
      }
      await page.getByText('已绑定', { exact: true }).filter({ visible: true }).first().click();
      await expect.poll(() => table.locator('tbody tr.ant-table-row').count()).toBe(0);

      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it(
    'screenshots the two staff pages in zh and en, light and dark, desktop and 375 px',
    { timeout: 300_000 },
    async () => {
      const s = server('plain');
      for (const lang of ['zh', 'en'] as const) {
        for (const scheme of ['light', 'dark'] as const) {
          const { context, page, errors } = await newPage(browser, { lang });
          if (scheme === 'dark') {
            await context.addInitScript(() => {
              if (!localStorage.getItem('admin-plus-layout'))
                localStorage.setItem(
                  'admin-plus-layout',
                  JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }),
                );
            });
          }
          await signInAsAdmin(page, s);
          for (const [width, height, size] of [
            [1366, 860, 'desktop'],
            [375, 780, 'mobile'],
          ] as const) {
            await page.setViewportSize({ width, height });
            for (const [path, name] of [
              ['/system/deviceModel', 'device-model'],
              ['/system/deviceRegistry', 'device-registry'],
            ] as const) {
              await open(page, s, path);
              await page.waitForLoadState('networkidle');
              await settle(page);
              await shot(page, `${name}-${lang}-${scheme}-${size}`);
            }
          }
          // the import dialog at phone width
          await page.getByRole('button', { name: lang === 'zh' ? /导入 CSV/ : /Import CSV/ }).click();
          await dialog(page, lang === 'zh' ? '导入 CSV' : 'Import CSV').waitFor();
          await settle(page);
          await shot(page, `device-registry-import-${lang}-${scheme}-mobile`);
          expect(errors).toEqual([]);
          await context.close();
        }
      }
    },
  );
});
