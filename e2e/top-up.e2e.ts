import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { createDb } from '../apps/server/src/db/database.ts';
import { createFleet, type Fleet } from '../apps/device-sim/src/fleet.ts';
import { bindInDb, registerInDb, setSimPlans } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs, type DeviceSpec } from '../apps/device-sim/src/specs.ts';
import { launch, newPage, query, server, settle, shot, uniqueName } from './browser.ts';
import { approveAccount, registerThroughUi, expectHash } from './flows.ts';

/**
 * Issue 13 end to end: a printer whose SIM ran out of data goes offline for that reason; its owner finds it and two
 * other low SIMs from the dashboard's reminder, buys a package for the three from the traffic query's selection,
 * pays in the sandbox cashier, sees the order fulfilled and the data grow, and the printer comes back online.
 */
let browser: Browser;
let fleet: Fleet | undefined;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await fleet?.stop().catch(() => {});
  await browser?.close();
});

const visible = (l: Locator) => l.filter({ visible: true }).first();
const SEARCH = '/flowRate/flowRateSearch';
const searchRows = (page: Page) =>
  page.locator(`[data-page-path^="${SEARCH}"]`).filter({ visible: true }).locator('tr.ant-table-row');

describe('topping up SIMs', () => {
  it(
    'brings a printer that ran out of data back online after its owner buys and pays for a package',
    { timeout: 300_000 },
    async () => {
      const s = server('plain');
      const { context, page, errors } = await newPage(browser, { lang: 'zh', width: 1366, height: 900 });
      const account = await registerThroughUi(page, s, 'enterprise');
      await approveAccount(s, account.username, '充值测试有限公司');
      const [{ id: tenantId }] = await query<{ id: number }>(
        s.databaseUrl,
        'SELECT tenant_id AS id FROM users WHERE username = $1',
        [account.username],
      );

      // On sale: a 1 GB monthly package at ¥19.90 (staff add packages in another flow).
      const name = uniqueName('月包');
      await query(
        s.databaseUrl,
        `INSERT INTO traffic_packages (name, data_mb, validity_days, price_fen, on_shelf) VALUES ($1, 1024, 30, 1990, true)`,
        [name],
      );

      // Three printers of the account: the first one runs (simulated) with 1 MB left at a heavy rate; the other two
      // are switched off with little data left.
      const specs: DeviceSpec[] = makeSpecs(3, {
        seed: 21,
        prefix: `TOP${Date.now().toString(36).toUpperCase().slice(-6)}`,
      });
      const [printer] = specs;
      fleet = await createFleet({
        url: s.mqttUrl,
        specs: [printer],
        heartbeatS: 1,
        randomFaults: false,
        dataProfile: 'heavy',
        dataRateScale: 7200,
        dataRetryS: 2,
        start: false,
      });
      const used = fleet.devices[0].usedMb;
      const db = createDb(s.databaseUrl, 2);
      try {
        await registerInDb(db, specs);
        await setSimPlans(db, specs, (spec) => ({
          carrier: 'cmcc',
          planMb: spec.sn === printer.sn ? used + 1 : 1024,
          usedMb: spec.sn === printer.sn ? used : 1000,
          expiresAt: new Date(Date.now() + 60 * 86_400_000),
        }));
        await bindInDb(
          db,
          Number(tenantId),
          specs.map((d) => d.sn),
          { name: (sn) => `收银台${sn.slice(-1)}` },
        );
      } finally {
        await db.destroy();
      }
      await fleet.start();

      // The printer runs out and goes offline for lack of data.
      await expect
        .poll(
          async () =>
            (
              await query<{ n: number }>(
                s.databaseUrl,
                `SELECT count(*)::int AS n FROM device_status_log l JOIN devices d ON d.id = l.device_id
                 WHERE d.sn = $1 AND l.status = 'offline' AND l.reason = 'no-data'`,
                [printer.sn],
              )
            )[0].n,
          { timeout: 60_000, interval: 500 },
        )
        .toBeGreaterThan(0);

      // The dashboard's reminder leads to the traffic query filtered to the low and used-up SIMs: all three.
      await page.reload();
      await page.goto(`${s.url}/#/index`);
      await visible(page.getByTestId('remind-simLow')).click();
      await expectHash(page, /^#\/flowRate\/flowRateSearch\?state=low(,|%2C)exhausted/);
      await expect.poll(() => searchRows(page).count(), { timeout: 15_000 }).toBe(3);
      const printerRow = visible(searchRows(page).filter({ hasText: printer.iccid }));
      // The usage roll-up may land a moment after the offline; the page takes it live.
      await expect.poll(() => printerRow.textContent(), { timeout: 15_000 }).toContain('已用尽');
      await settle(page);
      await shot(page, 'top-up-low-sims-zh');

      // All three selected, "buy package" opens the store with them picked.
      await visible(page.locator(`[data-page-path^="${SEARCH}"] thead .ant-checkbox-input`)).check();
      await visible(page.getByTestId('sim-buy')).click();
      await expectHash(page, /^#\/flowRate\/mallGoods\?iccids=/);
      await visible(page.locator('[data-testid^="package-"]', { hasText: name })).click();
      const quote = visible(page.getByTestId('quote'));
      await quote.getByText('¥59.70').waitFor({ timeout: 15_000 });
      expect(await quote.textContent()).toContain('3 张卡');
      await visible(page.getByRole('button', { name: /立即购买/ })).click();
      const pay = visible(page.locator('.ant-modal', { hasText: '支付订单' }));
      await pay.getByText('¥59.70').waitFor();

      // The sandbox cashier, in a new tab, as a gateway's page would be: "支付".
      const [cashier] = await Promise.all([context.waitForEvent('page'), pay.getByTestId('cashier-link').click()]);
      await cashier.waitForLoadState();
      await cashier.getByRole('button', { name: '支付', exact: true }).click();
      await cashier.getByText('支付成功').waitFor();
      await cashier.close();

      // The console hears of it: fulfilled, each SIM 1 GB more.
      await pay.getByTestId('pay-result').getByText('支付成功，流量已到账').waitFor({ timeout: 30_000 });
      await settle(page);
      await shot(page, 'top-up-paid-zh');
      const plans = await query<{ iccid: string; plan: string }>(
        s.databaseUrl,
        'SELECT iccid, plan_total_mb AS plan FROM sims WHERE iccid = ANY($1) ORDER BY iccid',
        [specs.map((d) => d.iccid)],
      );
      expect(plans.find((p) => p.iccid === printer.iccid)!.plan).toBe(String((used + 1 + 1024).toFixed(2)));
      for (const p of plans.filter((x) => x.iccid !== printer.iccid)) expect(Number(p.plan)).toBe(2048);
      // from here on the printer uses data at a real rate (at the test's rate 1 GB would last seconds)
      fleet.devices[0].sim.rateScale = 1;
      await pay
        .locator('.ant-modal-footer')
        .getByRole('button', { name: /关\s*闭/ })
        .click();

      // The traffic query, unfiltered: the three SIMs are active again, without a reload.
      await page.goto(`${s.url}/#${SEARCH}`);
      await expect.poll(() => searchRows(page).count(), { timeout: 15_000 }).toBe(3);
      await expect
        .poll(async () => (await searchRows(page).allTextContents()).filter((t) => t.includes('正常')).length, {
          timeout: 15_000,
        })
        .toBe(3);

      // The printer's next try finds data again: online in the device list, live.
      await fleet.devices[0].waitOnline(30_000);
      await page.goto(`${s.url}/#/device/index`);
      const deviceRow = visible(page.locator(`tr[data-device-sn="${printer.sn}"]`));
      await expect.poll(async () => (await deviceRow.textContent()) ?? '', { timeout: 20_000 }).toContain('在线');
      await settle(page);
      await shot(page, 'top-up-back-online-zh');
      expect(errors).toEqual([]);
      await context.close();
    },
  );
});
