import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launch, newPage, query, server, settle, shot } from './browser.ts';
import { expectHash, registerThroughUi } from './flows.ts';
import { makeApk, makeSigner } from '../apps/server/test/fixtures/apk.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

describe('my applications (issue 15)', () => {
  it(
    'uploads a signed APK in chunks, lists it with what was read from it, in zh and en and on a phone',
    { timeout: 300_000 },
    async () => {
      const s = server('plain');
      const { context, page, errors } = await newPage(browser, { lang: 'zh' });
      const account = await registerThroughUi(page, s, 'enterprise');
      await query(
        s.databaseUrl,
        `UPDATE tenants SET auth_status = 1, attest_name = '应用测试有限公司' WHERE id = (SELECT tenant_id FROM users WHERE username = $1)`,
        [account.username],
      );
      const signer = makeSigner('E2E Signer');
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-apk-'));
      const apk = path.join(dir, 'print-helper.apk');
      fs.writeFileSync(
        apk,
        makeApk(
          {
            packageName: 'com.cloudprint.helper',
            versionCode: 7,
            versionName: '1.3.0',
            label: 'Print Helper',
            minSdk: 26,
            targetSdk: 34,
            permissions: ['android.permission.INTERNET', 'android.permission.BLUETOOTH_CONNECT'],
          },
          signer,
        ),
      );

      await page.reload();
      await page.goto(`${s.url}/#/application/myApplication`);
      await expectHash(page, /^#\/application\/myApplication/);
      await page.getByText('还没有应用').first().waitFor({ timeout: 20_000 });
      await page.getByRole('button', { name: '上传应用' }).click();
      await page.locator('.ant-drawer input[type=file]').setInputFiles(apk);
      await page
        .getByText('Print Helper 1.3.0 已添加')
        .waitFor({ timeout: 30_000 })
        .catch(async (e: unknown) => {
          await shot(page, 'application-packages-upload-failed');
          throw e;
        });

      const row = page.locator('tr', { hasText: 'com.cloudprint.helper' });
      await row.waitFor();
      expect(await row.textContent()).toContain('1.3.0');
      expect(await row.textContent()).toContain(signer.fingerprint.slice(0, 16));
      // its icon, read from the APK, is shown
      await row.locator('.ant-avatar img').waitFor();
      await settle(page);
      await shot(page, 'application-packages-zh');

      // the details: what was read from the APK
      await row
        .getByRole('button', { name: '详 情' })
        .or(row.getByRole('button', { name: '详情' }))
        .first()
        .click();
      const drawer = page.locator('.ant-drawer', { hasText: '应用详情' });
      await drawer.getByText('BLUETOOTH_CONNECT').waitFor();
      expect(await drawer.textContent()).toContain(signer.fingerprint);
      expect(await drawer.textContent()).toContain('CN=E2E Signer');
      await settle(page);
      await shot(page, 'application-packages-detail-zh');

      // English, and a phone's width
      await context.close();
      const en = await newPage(browser, { lang: 'en', width: 375, height: 800 });
      // and the dark scheme
      await en.context.addInitScript(() => {
        if (!localStorage.getItem('admin-plus-layout'))
          localStorage.setItem('admin-plus-layout', JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }));
      });
      await en.page.goto(`${s.url}/#/login`);
      const { login } = await import('./flows.ts');
      await login(en.page, s, account.username, account.password);
      await expectHash(en.page, /^#\/(?!login)/, 20_000);
      await en.page.goto(`${s.url}/#/application/myApplication`);
      await en.page.getByText('My applications').first().waitFor({ timeout: 20_000 });
      await en.page.locator('tr', { hasText: 'com.cloudprint.helper' }).waitFor();
      await settle(en.page);
      await shot(en.page, 'application-packages-en-375');

      // a newer version signed by another certificate is refused, naming both fingerprints
      const other = makeSigner('Someone Else');
      const forged = path.join(dir, 'print-helper-1.4.apk');
      fs.writeFileSync(
        forged,
        makeApk(
          { packageName: 'com.cloudprint.helper', versionCode: 8, versionName: '1.4.0', label: 'Print Helper' },
          other,
        ),
      );
      await en.page.getByRole('button', { name: 'Upload app' }).click();
      await en.page.locator('.ant-drawer input[type=file]').setInputFiles(forged);
      const refusal = en.page.locator('.ant-drawer [role=alert]', { hasText: other.fingerprint.slice(0, 16) });
      await refusal.waitFor({ timeout: 30_000 });
      expect(await refusal.textContent()).toContain(signer.fingerprint.slice(0, 16));
      await settle(en.page);
      await shot(en.page, 'application-packages-refused-en-375');
      await en.page.locator('.ant-drawer-close').click();
      const overflow = await en.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(1);
      expect(errors).toEqual([]);
      expect(en.errors).toEqual([]);
      await en.context.close();
    },
  );
});
