import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { createDb } from '../apps/server/src/db/database.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs } from '../apps/device-sim/src/specs.ts';
import { launch, newPage, query, server, settle, shot, uniqueName } from './browser.ts';
import { approveAccount, login, registerThroughUi, expectHash } from './flows.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

const visible = (l: Locator) => l.filter({ visible: true }).first();
const drawer = (page: Page) => visible(page.locator('.ant-drawer-section'));
const modal = (page: Page, title: string | RegExp) => visible(page.locator('.ant-modal', { hasText: title }));

async function dark(page: Page) {
  await page.context().addInitScript(() => {
    if (!localStorage.getItem('admin-plus-layout'))
      localStorage.setItem('admin-plus-layout', JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }));
  });
}

/** The width of the page on a phone: nothing but tables scrolls sideways. */
async function fitsPhone(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
}

describe('traffic packages, orders and payment in the sandbox', () => {
  it(
    'staff add a package; a customer buys it for three SIMs, pays in the sandbox cashier, sees the data added; staff refund',
    { timeout: 300_000 },
    async () => {
      const s = server('plain');

      // Staff add a package in the catalogue (zh, light).
      const staff = await newPage(browser, { lang: 'zh' });
      await login(staff.page, s, 'admin', s.adminPassword);
      await expectHash(staff.page, /^#\/(?!login)/);
      await staff.page.goto(`${s.url}/#/flowRate/mallGoods`);
      await staff.page.getByText('流量套餐管理').first().waitFor({ timeout: 15_000 });
      const name = uniqueName('月包');
      await visible(staff.page.getByRole('button', { name: /新增套餐/ })).click();
      const form = drawer(staff.page);
      await form.locator('#trafficPackage_name').fill(name);
      await form.locator('#trafficPackage_dataMb').fill('1024');
      await form.locator('#trafficPackage_validityDays').fill('30');
      await form.locator('#trafficPackage_price').fill('19.9');
      await form.getByRole('button', { name: /保\s*存/ }).click();
      await staff.page.getByText(`已新增套餐「${name}」`).waitFor();
      await visible(staff.page.locator('.ant-table-row', { hasText: name })).waitFor();
      expect(await visible(staff.page.locator('.ant-table-row', { hasText: name })).textContent()).toContain('¥19.90');
      await settle(staff.page);
      await shot(staff.page, 'order-goods-zh-light');

      // A customer with three SIMs on its devices (bound in the database, as the factory and binding would).
      const { context, page, errors } = await newPage(browser, { lang: 'zh' });
      const reg = await registerThroughUi(page, s, 'individual');
      await approveAccount(s, reg.username, '张三');
      const specs = makeSpecs(3, { seed: 13, prefix: `ORD${Date.now().toString(36).toUpperCase().slice(-5)}` });
      const db = createDb(s.databaseUrl, 2);
      try {
        await registerInDb(db, specs);
        const [{ id }] = await query<{ id: number }>(
          s.databaseUrl,
          'SELECT tenant_id AS id FROM users WHERE username = $1',
          [reg.username],
        );
        await bindInDb(
          db,
          Number(id),
          specs.map((x) => x.sn),
          { name: (sn) => `收银台${sn.slice(-1)}` },
        );
      } finally {
        await db.destroy();
      }
      const iccids = specs.map((x) => x.iccid);
      await query(s.databaseUrl, 'UPDATE sims SET plan_total_mb = 100, used_mb = 20 WHERE iccid = ANY($1)', [iccids]);

      // The traffic query links here with its selection: the three SIMs are picked already.
      await page.reload();
      await page.goto(`${s.url}/#/flowRate/mallGoods?iccids=${iccids.join(',')}`);
      await page.getByText('流量商城').first().waitFor({ timeout: 15_000 });
      const card = visible(page.locator('[data-testid^="package-"]', { hasText: name }));
      await card.click();
      const quote = visible(page.getByTestId('quote'));
      await quote.getByText('¥59.70').waitFor();
      expect(await quote.textContent()).toContain('3 张卡');
      await settle(page);
      await shot(page, 'order-mall-zh-light');

      await visible(page.getByRole('button', { name: /立即购买/ })).click();
      const pay = modal(page, '支付订单');
      await pay.getByText('¥59.70').waitFor();
      await pay.locator('canvas, svg').first().waitFor();
      await settle(page);
      await shot(page, 'order-pay-zh-light');

      // The cashier opens in a new tab; "支付" there makes the sandbox gateway notify the server.
      const cashierUrl = (await pay.getByTestId('cashier-link').getAttribute('href'))!;
      const [cashier] = await Promise.all([context.waitForEvent('page'), pay.getByTestId('cashier-link').click()]);
      await cashier.waitForLoadState();
      await cashier.getByText('¥59.70').waitFor();
      await shot(cashier, 'order-cashier-zh-light');
      await cashier.getByRole('button', { name: '支付', exact: true }).click();
      await cashier.getByText('支付成功').waitFor();
      await cashier.close();

      const result = pay.getByTestId('pay-result');
      await result.getByText('支付成功，流量已到账').waitFor({ timeout: 20_000 });
      expect(await result.getByText('100 MB → 1.1 GB').count()).toBe(3);
      await settle(page);
      await shot(page, 'order-paid-zh-light');
      const sims = await query<{ plan: string }>(
        s.databaseUrl,
        'SELECT plan_total_mb AS plan FROM sims WHERE iccid = ANY($1)',
        [iccids],
      );
      expect(sims.map((r) => Number(r.plan))).toEqual([1124, 1124, 1124]);
      await pay
        .locator('.ant-modal-footer')
        .getByRole('button', { name: /关\s*闭/ })
        .click();

      // The SIMs' remaining data grew: the picker says so.
      await visible(page.getByTestId('sim-picker')).click();
      await expect.poll(() => page.locator('.ant-select-item-option', { hasText: '剩余 1.08 GB' }).count()).toBe(3);
      await page.keyboard.press('Escape');

      // The top-up records show the order, its lines and a receipt.
      await page.goto(`${s.url}/#/flowRate/flowRateLog`);
      const row = visible(page.locator('.ant-table-row', { hasText: name }));
      await row.waitFor({ timeout: 15_000 });
      expect(await row.textContent()).toContain('已到账');
      const [{ order_no: orderNo }] = await query<{ order_no: string }>(
        s.databaseUrl,
        'SELECT order_no FROM orders o JOIN users u ON u.tenant_id = o.tenant_id WHERE u.username = $1',
        [reg.username],
      );
      await row.getByRole('button', { name: /详\s*情/ }).click();
      const detail = drawer(page);
      await detail.getByTestId('order-receipt').waitFor();
      await detail.getByText(orderNo).first().waitFor();
      expect(await detail.getByRole('button', { name: /退\s*款/ }).count()).toBe(0);
      await settle(page);
      await shot(page, 'order-log-zh-light');
      // printing shows the receipt alone
      await page.emulateMedia({ media: 'print' });
      await shot(page, 'order-receipt-zh-print');
      expect(await page.getByTestId('order-receipt').isVisible()).toBe(true);
      await page.emulateMedia({ media: 'screen' });

      // The dashboard's order widget: this month's spend and the order.
      await page.goto(`${s.url}/#/index`);
      const widget = visible(page.getByTestId('widget-order'));
      await widget.getByText('¥59.70').first().waitFor({ timeout: 15_000 });
      await widget.getByText(orderNo).waitFor();
      await settle(page);
      await shot(page, 'order-dashboard-zh-light');
      await page.goto(`${s.url}/#/flowRate/flowRateLog`);
      await row.waitFor();
      expect(errors).toEqual([]);

      // Staff refund it with a reason, from every tenant's records.
      await staff.page.goto(`${s.url}/#/flowRate/flowRateLog`);
      const staffRow = visible(staff.page.locator('.ant-table-row', { hasText: orderNo }));
      await staffRow.waitFor({ timeout: 15_000 });
      await staffRow.getByRole('button', { name: /详\s*情/ }).click();
      await drawer(staff.page)
        .getByRole('button', { name: /退\s*款/ })
        .click();
      const refund = modal(staff.page, '退款订单');
      await refund.getByRole('button', { name: /确认退款/ }).click();
      await refund.getByText('请填写此项').waitFor();
      await refund.locator('#orderRefund_reason').fill('客户重复购买');
      await settle(staff.page);
      await shot(staff.page, 'order-refund-zh-light');
      await refund.getByRole('button', { name: /确认退款/ }).click();
      await staff.page.getByText('已退款').first().waitFor();
      await drawer(staff.page).getByText('客户重复购买').waitFor();
      // the customer's records follow live
      await page.goto(`${s.url}/#/flowRate/flowRateLog`);
      await expect.poll(async () => (await row.textContent()) ?? '', { timeout: 15_000 }).toContain('已退款');
      expect(staff.errors).toEqual([]);
      await staff.context.close();
      await context.close();

      // English, dark, a phone's width: the store and the records.
      const phone = await newPage(browser, { lang: 'en', width: 375, height: 800 });
      await dark(phone.page);
      await login(phone.page, s, reg.username, reg.password);
      await expectHash(phone.page, /^#\/(?!login)/);
      await phone.page.goto(`${s.url}/#/flowRate/mallGoods?iccids=${iccids[0]}`);
      await visible(phone.page.locator('[data-testid^="package-"]', { hasText: name })).click();
      await visible(phone.page.getByTestId('quote')).getByText('¥19.90').waitFor();
      await settle(phone.page);
      await shot(phone.page, 'order-mall-en-dark-375');
      await fitsPhone(phone.page);
      // the pay step in English; the customer cancels this one
      await visible(phone.page.getByRole('button', { name: /Buy now/ })).click();
      const payEn = modal(phone.page, 'Pay order');
      await payEn.getByTestId('cashier-link').waitFor();
      await settle(phone.page);
      await shot(phone.page, 'order-pay-en-dark-375');
      await payEn.getByRole('button', { name: 'Cancel order' }).click();
      await payEn.waitFor({ state: 'hidden' });
      await phone.page.goto(`${s.url}/#/index`);
      await visible(phone.page.getByTestId('widget-order')).getByText('Canceled').waitFor({ timeout: 15_000 });
      await settle(phone.page);
      await shot(phone.page, 'order-dashboard-en-dark-375');
      await phone.page.goto(`${s.url}/#/flowRate/flowRateLog`);
      await visible(phone.page.locator('.ant-table-row', { hasText: 'Refunded' })).waitFor({ timeout: 15_000 });
      await settle(phone.page);
      await shot(phone.page, 'order-log-en-dark-375');
      await fitsPhone(phone.page);
      expect(phone.errors).toEqual([]);

      // the sandbox cashier in English, dark, on a phone
      await phone.page.emulateMedia({ colorScheme: 'dark' });
      await phone.page.goto(`${cashierUrl}&lang=en`);
      await phone.page.getByRole('button', { name: 'Pay', exact: true }).waitFor();
      await phone.page.getByRole('button', { name: 'Fail', exact: true }).waitFor();
      await shot(phone.page, 'order-cashier-en-dark-375');
      await fitsPhone(phone.page);
      await phone.context.close();

      // English, dark, wide: staff's catalogue.
      const wide = await newPage(browser, { lang: 'en' });
      await dark(wide.page);
      await login(wide.page, s, 'admin', s.adminPassword);
      await expectHash(wide.page, /^#\/(?!login)/);
      await wide.page.goto(`${s.url}/#/flowRate/mallGoods`);
      await visible(wide.page.locator('.ant-table-row', { hasText: name })).waitFor({ timeout: 15_000 });
      await settle(wide.page);
      await shot(wide.page, 'order-goods-en-dark');
      await wide.page.goto(`${s.url}/#/flowRate/flowRateLog`);
      await visible(wide.page.locator('.ant-table-row', { hasText: 'Refunded' })).waitFor({ timeout: 15_000 });
      await settle(wide.page);
      await shot(wide.page, 'order-log-en-dark');
      expect(wide.errors).toEqual([]);
      await wide.context.close();
    },
  );
});
