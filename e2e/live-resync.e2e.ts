import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createDb } from '../apps/server/src/db/database.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs } from '../apps/device-sim/src/specs.ts';
import { launch, newPage, query, server } from './browser.ts';
import { approveAccount, registerThroughUi, expectHash } from './flows.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('live events after the server lost its database link', () => {
  it('has an open device list catch up with a change it was never told about', { timeout: 120_000 }, async () => {
    const s = server('plain');
    const { context, page, errors } = await newPage(browser, { lang: 'zh' });
    const reg = await registerThroughUi(page, s, 'individual');
    await approveAccount(s, reg.username, '张三');
    const [spec] = makeSpecs(1, { seed: 11, prefix: `LRS${Date.now().toString(36).toUpperCase().slice(-6)}` });
    const db = createDb(s.databaseUrl, 2);
    try {
      await registerInDb(db, [spec]);
      const [{ id: tenantId }] = await query<{ id: number }>(
        s.databaseUrl,
        'SELECT tenant_id AS id FROM users WHERE username = $1',
        [reg.username],
      );
      await bindInDb(db, Number(tenantId), [spec.sn], { name: () => '前台打印机' });
    } finally {
      await db.destroy();
    }

    await page.reload();
    await page.goto(`${s.url}/#/device/index`);
    await expectHash(page, /^#\/device\/index/);
    const row = page.locator(`tr[data-device-sn="${spec.sn}"]`).filter({ visible: true });
    await row.getByText('前台打印机').waitFor({ timeout: 15_000 });
    await page.locator('[data-live="open"]').filter({ visible: true }).waitFor({ timeout: 15_000 });

    // a change no event tells of (written straight to the database), then the server's LISTEN connection is
    // killed: once it is back the server tells the console to resync, and the list is read again
    await query(s.databaseUrl, 'UPDATE devices SET name = $1 WHERE sn = $2', ['后厨打印机', spec.sn]);
    const killed = await query(
      s.databaseUrl,
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'cpc-live-events'",
    );
    expect(killed.length).toBeGreaterThanOrEqual(1);
    // well before the list's own 60-second refresh
    await row.getByText('后厨打印机').waitFor({ timeout: 15_000 });
    await page.locator('[data-live="open"]').filter({ visible: true }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
