import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createDb } from '../apps/server/src/db/database.ts';
import { createFleet, type Fleet } from '../apps/device-sim/src/fleet.ts';
import { bindInDb, registerInDb, setSimPlans } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs, type DeviceSpec } from '../apps/device-sim/src/specs.ts';
import { launch, newPage, query, server, settle, shot } from './browser.ts';
import { approveAccount, login, registerThroughUi, expectHash } from './flows.ts';

let browser: Browser;
let fleet: Fleet | undefined;
let spec: DeviceSpec;
let deviceId: number;
let account: { username: string; password: string };

const statusLog = async () =>
  query<{ status: string; reason: string }>(
    server('plain').databaseUrl,
    `SELECT l.status, l.reason FROM device_status_log l JOIN devices d ON d.id = l.device_id WHERE d.sn = $1 ORDER BY l.id`,
    [spec.sn],
  );
const until = async (what: string, ok: () => Promise<boolean>, ms = 30_000) => {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

/** A customer with one simulated printer whose SIM has 1 MB left, used at a fast rate. */
beforeAll(async () => {
  browser = await launch();
  const s = server('plain');
  const { context, page } = await newPage(browser, { lang: 'zh' });
  account = await registerThroughUi(page, s, 'individual');
  await context.close();
  await approveAccount(s, account.username, '张三');
  [spec] = makeSpecs(1, { seed: 13, prefix: `SDE${Date.now().toString(36).toUpperCase().slice(-6)}` });
  fleet = await createFleet({
    url: s.mqttUrl,
    specs: [spec],
    heartbeatS: 1,
    randomFaults: false,
    dataProfile: 'heavy',
    dataRateScale: 7200,
    dataRetryS: 3,
    start: false,
  });
  const used = fleet.devices[0].usedMb;
  const db = createDb(s.databaseUrl, 2);
  try {
    const ids = await registerInDb(db, [spec]);
    deviceId = ids.get(spec.sn)!;
    await setSimPlans(db, [spec], () => ({
      carrier: 'cucc',
      planMb: used + 1,
      usedMb: used,
      expiresAt: new Date(Date.now() + 90 * 86_400_000),
    }));
    const [{ id: tenantId }] = await query<{ id: number }>(
      s.databaseUrl,
      'SELECT tenant_id AS id FROM users WHERE username = $1',
      [account.username],
    );
    await bindInDb(db, Number(tenantId), [spec.sn], { name: () => '流量测试打印机' });
  } finally {
    await db.destroy();
  }
  await fleet.start();
}, 120_000);
afterAll(async () => {
  await fleet?.stop().catch(() => {});
  await browser?.close();
});

async function openDetail(page: Page) {
  await login(page, server('plain'), account.username, account.password);
  await expectHash(page, /^#\/device\/index/);
  await page.goto(`${server('plain').url}/#/device/detail?id=${deviceId}`);
  await page.getByTestId('device-detail').waitFor({ timeout: 15_000 });
}

describe('a SIM out of data', () => {
  it('shows the device offline for lack of data, and online again after a top-up', { timeout: 120_000 }, async () => {
    await until('offline for lack of data', async () =>
      (await statusLog()).some((r) => r.status === 'offline' && r.reason === 'no-data'),
    );
    await until('offline', async () => !fleet!.devices[0].online);
    const { context, page, errors } = await newPage(browser, { lang: 'zh', width: 1366, height: 900 });
    await openDetail(page);
    await expect.poll(() => page.getByText('离线 · SIM 流量已用尽').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await settle(page);
    await shot(page, 'sim-data-no-data-zh');

    // the top-up (as the order fulfilment makes it): the device's next try finds room and it stays online
    // (using data at the real rate from now on: at the test's rate 100 MB would last seconds)
    fleet!.devices[0].sim.rateScale = 1;
    await query(server('plain').databaseUrl, 'UPDATE sims SET plan_total_mb = plan_total_mb + 100 WHERE iccid = $1', [
      spec.iccid,
    ]);
    await fleet!.devices[0].waitOnline(15_000);
    await expect
      .poll(() => page.getByTestId('device-detail').getAttribute('data-status'), { timeout: 20_000 })
      .toBe('online');
    await page.waitForTimeout(2500);
    expect(fleet!.devices[0].online).toBe(true);
    expect((await statusLog()).at(-1)).toEqual({ status: 'online', reason: 'hello' });
    expect(errors).toEqual([]);
    await context.close();

    // in English, on a phone
    const en = await newPage(browser, { lang: 'en', width: 375, height: 812 });
    await openDetail(en.page);
    await expect.poll(() => en.page.getByText('Offline · No data left on the SIM').count()).toBeGreaterThan(0);
    await en.page.locator('canvas').first().waitFor({ timeout: 15_000 });
    await settle(en.page);
    await shot(en.page, 'sim-data-back-en-375');
    expect(en.errors).toEqual([]);
    await en.context.close();
  });
});
