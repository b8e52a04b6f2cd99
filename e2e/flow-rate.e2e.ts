import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { createDb, type Db } from '../apps/server/src/db/database.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs } from '../apps/device-sim/src/specs.ts';
import { launch, newPage, query, server, settle, shot, uniqueName } from './browser.ts';
import { approveAccount, login, registerThroughUi, expectHash } from './flows.ts';

let browser: Browser;
let db: Db | undefined;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await db?.destroy();
  await browser?.close();
});

const PAGE = '/flowRate/flowRateSearch';

/** The share of a chart's canvas that is painted. */
const painted = (chart: Locator) =>
  chart
    .locator('canvas')
    .first()
    .evaluate((c: HTMLCanvasElement) => {
      const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height);
      let n = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
      return n / (c.width * c.height);
    })
    .catch(() => 0);

async function darkContext(context: BrowserContext) {
  await context.addInitScript(() => {
    if (!localStorage.getItem('admin-plus-layout'))
      localStorage.setItem('admin-plus-layout', JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }));
  });
}

/** The page shown (kept-alive pages are keyed by path and query: the one visible is the current one). */
const root = (page: Page) => page.locator(`[data-page-path^="${PAGE}"]`).filter({ visible: true });
const rows = (page: Page) => root(page).locator('tr.ant-table-row');

async function openSearch(page: Page, url: string, query = '') {
  await page.goto(`${url}/#${PAGE}${query}`);
  await expectHash(page, /^#\/flowRate\/flowRateSearch/);
  await tableOf(page);
}
async function tableOf(page: Page) {
  try {
    await root(page).locator('.ant-table').filter({ visible: true }).first().waitFor();
  } catch (e) {
    await shot(page, 'flow-rate-debug');
    throw e;
  }
}

describe('the traffic query', () => {
  it(
    'lets a customer filter the low SIMs, see one SIM chart and export the list, in zh and en',
    { timeout: 300_000 },
    async () => {
      const s = server('plain');
      const { context, page, errors } = await newPage(browser, { lang: 'zh' });
      const account = await registerThroughUi(page, s, 'enterprise');
      // approved by staff (through SQL: another flow tests the review)
      await approveAccount(s, account.username, '流量测试有限公司');
      await page.reload();
      const [{ tenant_id: tenantId }] = await query<{ tenant_id: number }>(
        s.databaseUrl,
        'SELECT tenant_id FROM users WHERE username = $1',
        [account.username],
      );

      // four devices with their SIMs, bound in the database (another flow binds through the screens)
      db = createDb(s.databaseUrl, 2);
      const specs = makeSpecs(4, { seed: Date.now() % 100_000, prefix: uniqueName('SIMQ').toUpperCase() });
      await registerInDb(db, specs);
      const names = ['前台收银', '后厨打印', '仓库标签', '门口取号'];
      await bindInDb(
        db,
        tenantId,
        specs.map((x) => x.sn),
        { name: (sn) => names[specs.findIndex((x) => x.sn === sn)] },
      );
      const day = 86_400_000;
      const plans: Array<[number, number, number | null]> = [
        [1024, 1000, 200], // low: 24 MB left
        [500, 500, 90], // used up
        [2048, 300, 5], // active, expiring in 5 days
        [1024, 100, 300], // active
      ];
      for (const [i, [plan, used, days]] of plans.entries()) {
        await query(
          s.databaseUrl,
          'UPDATE sims SET plan_total_mb = $2, used_mb = $3, expires_at = $4 WHERE iccid = $1',
          [specs[i].iccid, plan, used, days === null ? null : new Date(Date.now() + days * day)],
        );
      }
      // a month of daily usage for the low SIM (its chart)
      await query(
        s.databaseUrl,
        `INSERT INTO sim_usage_daily (sim_id, day, tx_bytes, rx_bytes)
         SELECT s.id, (now() AT TIME ZONE 'Asia/Shanghai')::date - g, (1 + g % 5) * 1048576, (10 + g % 7) * 1048576
         FROM sims s, generate_series(0, 29) g WHERE s.iccid = $1`,
        [specs[0].iccid],
      );
      await query(
        s.databaseUrl,
        `UPDATE sims SET month_start = date_trunc('month', now() AT TIME ZONE 'Asia/Shanghai')::date, month_bytes = 300 * 1048576
         WHERE iccid = $1`,
        [specs[0].iccid],
      );

      // the dashboard's reminder opens the traffic query filtered to the low and used-up SIMs
      await page.goto(`${s.url}/#/index`);
      await page.getByTestId('widget-plan').filter({ visible: true }).waitFor();
      await page.getByTestId('remind-simLow').filter({ visible: true }).click();
      await expectHash(page, /^#\/flowRate\/flowRateSearch\?state=low(,|%2C)exhausted/);
      await tableOf(page);
      await expect.poll(() => rows(page).count(), { timeout: 15_000 }).toBe(2);

      // from the whole list, a customer filters the low SIMs with the state filter
      await openSearch(page, s.url);
      await expect.poll(() => rows(page).count(), { timeout: 15_000 }).toBe(4);
      await expect.poll(() => root(page).getByTestId('sim-summary-total').textContent()).toContain('4');
      await root(page).getByTestId('sim-filter-state').click();
      await page.locator('.ant-select-item-option', { hasText: '流量不足' }).click();
      await page.keyboard.press('Escape');
      await root(page)
        .getByRole('button', { name: /查\s*询/ })
        .click();
      await expectHash(page, /state=low(&|$)/);
      await expect.poll(() => rows(page).count(), { timeout: 15_000 }).toBe(1);
      const low = rows(page).first();
      expect(await low.textContent()).toContain(specs[0].iccid);
      expect(await low.textContent()).toContain('前台收银');
      expect(await low.textContent()).toContain('流量不足');
      await settle(page);
      await shot(page, 'flow-rate-zh-light');

      // the SIM's chart: 30 days of up and down
      await root(page).getByTestId(`sim-chart-${specs[0].iccid}`).click();
      const drawer = page.getByTestId('sim-usage');
      await drawer.waitFor();
      await expect.poll(() => painted(drawer), { timeout: 30_000 }).toBeGreaterThan(0.01);
      expect(await page.getByTestId('sim-usage-total').textContent()).toMatch(/合计 \d/);
      await settle(page);
      await shot(page, 'flow-rate-chart-zh-light');
      await page.getByText('近 12 个月').click();
      await expect.poll(() => painted(drawer), { timeout: 15_000 }).toBeGreaterThan(0.005);
      await page.locator('.ant-drawer-close').click();
      await drawer.waitFor({ state: 'detached' });
      await page.locator('.ant-drawer-mask').filter({ visible: true }).waitFor({ state: 'detached' });
      await settle(page);

      // the export: the filtered list as CSV, headed in the console's language
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: 60_000 }),
        root(page)
          .getByRole('button', { name: /导出 CSV/ })
          .click(),
      ]);
      expect(download.suggestedFilename()).toMatch(/^sims-\d+\.csv$/);
      const text = fs.readFileSync(await download.path(), 'utf8');
      expect(text.startsWith('\ufeffICCID,卡号,运营商')).toBe(true);
      const lines = text.trim().split('\r\n');
      expect(lines).toHaveLength(2);
      expect(lines[1]).toContain(specs[0].iccid);

      // selecting SIMs enables "Buy package", which opens the mall with them
      const buy = root(page).getByTestId('sim-buy');
      expect(await buy.isDisabled()).toBe(true);
      await low.locator('.ant-checkbox-input').check();
      expect(await buy.isDisabled()).toBe(false);
      expect(errors).toEqual([]);
      await context.close();

      // English, dark, a phone's width
      const phone = await newPage(browser, { lang: 'en', width: 375, height: 800 });
      await darkContext(phone.context);
      await login(phone.page, s, account.username, account.password);
      await expectHash(phone.page, /^#\/(?!login)/);
      await openSearch(phone.page, s.url, '?state=low,exhausted');
      await expect.poll(() => rows(phone.page).count(), { timeout: 15_000 }).toBe(2);
      await root(phone.page).getByText('Used up').first().waitFor();
      await settle(phone.page);
      await shot(phone.page, 'flow-rate-en-dark-375');
      const wide = await phone.page.evaluate(
        (p) =>
          [...document.querySelectorAll(`[data-page-path^="${p}"] *`)]
            .filter((e) => e.getBoundingClientRect().right > 376 && !e.closest('.ant-table-content'))
            .slice(0, 5)
            .map((e) => `${e.tagName}.${e.className}`.slice(0, 80)),
        PAGE,
      );
      expect(wide).toEqual([]);
      expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await root(phone.page).getByTestId(`sim-chart-${specs[0].iccid}`).click();
      await expect.poll(() => painted(phone.page.getByTestId('sim-usage')), { timeout: 30_000 }).toBeGreaterThan(0.01);
      await settle(phone.page);
      await shot(phone.page, 'flow-rate-chart-en-dark-375');
      expect(phone.errors).toEqual([]);
      await phone.context.close();

      // English light and Chinese dark on a desktop, and the dashboard's plan widget
      const en = await newPage(browser, { lang: 'en' });
      await login(en.page, s, account.username, account.password);
      await expectHash(en.page, /^#\/(?!login)/);
      await openSearch(en.page, s.url);
      await expect.poll(() => rows(en.page).count(), { timeout: 15_000 }).toBe(4);
      await settle(en.page);
      await shot(en.page, 'flow-rate-en-light');
      await en.page.goto(`${s.url}/#/index`);
      await en.page
        .getByTestId('widget-plan')
        .filter({ visible: true })
        .getByText('Expiring within 7 days (1)')
        .waitFor();
      await en.page.getByTestId('widget-plan').filter({ visible: true }).scrollIntoViewIfNeeded();
      await settle(en.page);
      await shot(en.page, 'dashboard-plan-en-light');
      expect(en.errors).toEqual([]);
      await en.context.close();

      const zhDark = await newPage(browser, { lang: 'zh' });
      await darkContext(zhDark.context);
      await login(zhDark.page, s, account.username, account.password);
      await expectHash(zhDark.page, /^#\/(?!login)/);
      await openSearch(zhDark.page, s.url);
      await expect.poll(() => rows(zhDark.page).count(), { timeout: 15_000 }).toBe(4);
      await settle(zhDark.page);
      await shot(zhDark.page, 'flow-rate-zh-dark');
      await zhDark.page.goto(`${s.url}/#/index`);
      await zhDark.page.getByTestId('widget-plan').filter({ visible: true }).getByText('7 天内到期（1）').waitFor();
      await settle(zhDark.page);
      await shot(zhDark.page, 'dashboard-plan-zh-dark');
      expect(zhDark.errors).toEqual([]);
      await zhDark.context.close();
    },
  );
});
