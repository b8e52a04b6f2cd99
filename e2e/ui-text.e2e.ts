import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createDb } from '../apps/server/src/db/database.ts';
import { startServer, type Running } from '../apps/server/src/server.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs } from '../apps/device-sim/src/specs.ts';
import { launch, latestCaptcha, newPage, query, server, settle, shot } from './browser.ts';
import { approveAccount, openAfterApproval, login, registerThroughUi, solveCaptcha, expectHash } from './flows.ts';

/** What a new user tripped over (issue 11): the error log, the captcha, tab titles, the bind shortcut. */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

type Server = ReturnType<typeof server>;

/** A customer signed in through the screens, identity approved, with devices named `names` bound. */
async function customerWithDevices(page: Page, s: Server, names: string[]) {
  const reg = await registerThroughUi(page, s, 'individual');
  await approveAccount(s, reg.username, 'Test User');
  const ids: number[] = [];
  if (names.length) {
    const specs = makeSpecs(names.length, { seed: 11, prefix: `UT${Date.now().toString(36).toUpperCase().slice(-6)}` });
    const db = createDb(s.databaseUrl, 2);
    try {
      await registerInDb(db, specs);
      const [{ id: tenantId }] = await query<{ id: number }>(
        s.databaseUrl,
        'SELECT tenant_id AS id FROM users WHERE username = $1',
        [reg.username],
      );
      await bindInDb(
        db,
        Number(tenantId),
        specs.map((d) => d.sn),
        { name: (sn) => names[specs.findIndex((d) => d.sn === sn)] },
      );
    } finally {
      await db.destroy();
    }
    for (const d of specs)
      ids.push(
        Number((await query<{ id: number }>(s.databaseUrl, 'SELECT id FROM devices WHERE sn = $1', [d.sn]))[0].id),
      );
  }
  await openAfterApproval(page, s);
  return { ...reg, ids };
}

const errorBadge = (page: Page) => page.getByTestId('error-log-button');

describe('the error log', () => {
  it(
    "does not count a customer's typing mistakes; a customer's unexpected error goes to the server's log",
    { timeout: 180_000 },
    async () => {
      const s = server('plain');
      const { context, page } = await newPage(browser, { lang: 'zh' });
      await customerWithDevices(page, s, []);

      // a wrong bind key: the dialog says so, nothing is logged
      await page.getByRole('button', { name: '绑定设备' }).first().click();
      const bind = page.locator('.ant-modal').filter({ visible: true, hasText: '绑定设备' });
      await bind.locator('#bind_sn').fill('NOSUCHDEVICE1');
      await bind.locator('#bind_bindKey').fill('WRONGKEY99');
      await bind.getByRole('button', { name: /绑\s*定/ }).click();
      await bind.locator('.ant-form-item-explain-error').first().waitFor();
      await page.keyboard.press('Escape');

      // a wrong lock password: refused on the lock screen, nothing is logged
      await page.getByTestId('lock-button').click();
      const lock = page.getByTestId('lock-screen');
      await lock.waitFor();
      await lock.locator('input[type=password]').fill('Wrong-password-1');
      await lock.getByRole('button', { name: /解\s*锁/ }).click();
      await lock.getByText('请输入正确的密码').waitFor();
      await page.waitForTimeout(500);
      expect(await errorBadge(page).count()).toBe(0);

      // an uncaught error in the page: not on the customer's screen, reported to the server instead
      const reported = page.waitForRequest(
        (r) => r.url().endsWith('/apiAdmin/system/clientError') && r.method() === 'POST',
      );
      await page.evaluate(() =>
        setTimeout(() => {
          throw new Error('unexpected in a customer page');
        }),
      );
      const report = await reported;
      expect(report.postDataJSON()).toMatchObject({
        message: expect.stringContaining('unexpected in a customer page'),
      });
      expect((await report.response())?.status()).toBe(200);
      await page.waitForTimeout(300);
      expect(await errorBadge(page).count()).toBe(0);
      await shot(page, 'ui-text-customer-no-error-badge');
      await context.close();
    },
  );

  it('shows staff the badge for an unexpected error, not for a wrong lock password', { timeout: 120_000 }, async () => {
    const s = server('plain');
    const { context, page } = await newPage(browser, { lang: 'en' });
    await login(page, s, 'admin', s.adminPassword);
    await expectHash(page, /^#\/device\/index/);
    await page.getByTestId('header-tools').waitFor();
    await page.getByTestId('lock-button').click();
    const lock = page.getByTestId('lock-screen');
    await lock.waitFor();
    await lock.locator('input[type=password]').fill('Wrong-password-1');
    await lock.getByRole('button', { name: 'Unlock' }).click();
    await lock.getByText('please enter the correct password').waitFor();
    await page.waitForTimeout(500);
    expect(await errorBadge(page).count()).toBe(0);
    await lock.locator('input[type=password]').fill(s.adminPassword);
    await lock.getByRole('button', { name: 'Unlock' }).click();
    await lock.waitFor({ state: 'detached' });

    await page.evaluate(() =>
      setTimeout(() => {
        throw new Error('unexpected in a staff page');
      }),
    );
    await errorBadge(page).waitFor();
    await errorBadge(page).click();
    await page.getByTestId('error-log-message').getByText('unexpected in a staff page').waitFor();
    await settle(page);
    await shot(page, 'ui-text-staff-error-log');
    await context.close();
  });
});

describe('tabs name their object; one page is one tab', () => {
  it(
    'opens two devices as two tabs with their names, and personal info and centre as one tab',
    { timeout: 180_000 },
    async () => {
      const s = server('plain');
      const { context, page } = await newPage(browser, { lang: 'zh', width: 1440 });
      const c = await customerWithDevices(page, s, ['Printer-01', 'Printer-02']);
      for (const id of c.ids) {
        await page.goto(`${s.url}/#/device/detail?id=${id}`);
        await page.locator(`[data-tab-path="/device/detail?id=${id}"]`).waitFor();
      }
      const title = (id: number) => page.locator(`[data-tab-path="/device/detail?id=${id}"] .cpc-tab__title`);
      await expect.poll(() => title(c.ids[0]).innerText()).toBe('设备详情 · Printer-01');
      await expect.poll(() => title(c.ids[1]).innerText()).toBe('设备详情 · Printer-02');

      await page.goto(`${s.url}/#/person/info`);
      await page.locator('[data-tab-path="/person/info"]').waitFor();
      await page.goto(`${s.url}/#/setting/personalCenter`);
      await expectHash(page, /^#\/person\/info/);
      const paths = await page
        .locator('[data-tab-path]')
        .evaluateAll((els) => els.map((el) => el.getAttribute('data-tab-path')));
      expect(paths.filter((p) => p === '/person/info')).toHaveLength(1);
      expect(paths.some((p) => p?.startsWith('/setting'))).toBe(false);
      await settle(page);
      await shot(page, 'ui-text-tabs-named');

      // the theme button covers no content: at the end of a long page it sits over the footer's band
      await page.goto(`${s.url}/#/device/detail?id=${c.ids[0]}`);
      await page.locator(`[data-page-path="/device/detail?id=${c.ids[0]}"]`).waitFor();
      await page.waitForLoadState('networkidle');
      await page.mouse.wheel(0, 10_000);
      await page.waitForTimeout(500);
      const button = await page.getByTestId('theme-setting-tab').boundingBox();
      const content = await page.locator('.cpc-content').first().boundingBox();
      expect(button!.y).toBeGreaterThanOrEqual(content!.y + content!.height - 1);
      await context.close();
    },
  );

  it("home's 'bind a device' opens the bind dialog", { timeout: 120_000 }, async () => {
    const s = server('plain');
    const { context, page } = await newPage(browser, { lang: 'zh' });
    await customerWithDevices(page, s, []);
    await page.goto(`${s.url}/#/index`);
    await page.getByTestId('dashboard-empty').getByRole('button').click();
    await page.locator('.ant-modal').filter({ visible: true, hasText: '绑定设备' }).waitFor();
    await expectHash(page, /^#\/device\/index$/);
    await context.close();
  });
});

describe('captcha', () => {
  let extra: Running;
  let url: string;
  let databaseUrl: string;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-ui-text-'));
  const TTL_S = 4;

  beforeAll(async () => {
    // a server of its own with a short captcha life, on the shared PostgreSQL
    const base = new URL(server('plain').databaseUrl);
    const name = `e2e_uitext_${process.pid}`;
    const admin = new pg.Client(base.toString());
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    base.pathname = `/${name}`;
    databaseUrl = base.toString();
    extra = await startServer({
      PORT: '0',
      MQTT_PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      ADMIN_PASSWORD: server('plain').adminPassword,
      CAPTCHA_PROVIDER: 'svg',
      CAPTCHA_TTL_S: String(TTL_S),
      LOG_LEVEL: 'warn',
      NODE_ENV: 'test',
      WEB_DIST: process.env.E2E_WEB_DIST ?? path.resolve(import.meta.dirname, '../apps/web/dist'),
    });
    url = extra.url;
  });
  afterAll(async () => {
    await extra?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'an idle login page still signs in on the first try after the captcha’s life has passed',
    { timeout: 60_000 },
    async () => {
      const { context, page } = await newPage(browser, { lang: 'en' });
      await page.goto(`${url}/#/login`);
      await page.locator('img[src^="data:image/svg+xml"]').first().waitFor();
      await page.waitForTimeout((TTL_S + 2) * 1000);
      await page.fill('#username', 'admin');
      await page.fill('#password', server('plain').adminPassword);
      await page.fill('#captcha', await latestCaptcha(databaseUrl));
      await page.locator('form button[type=submit]').click();
      await expectHash(page, /^#\/device\/index/);
      await context.close();
    },
  );

  for (const width of [1440, 375]) {
    for (const route of ['/register', '/login', '/login88121']) {
      it(`draws the captcha at a readable size on ${route} at ${width} px`, { timeout: 60_000 }, async () => {
        const { context, page } = await newPage(browser, { lang: 'zh', width, height: 860 });
        await page.goto(`${url}/#${route}`);
        const img = page.locator('img[src^="data:image/svg+xml"]').first();
        await img.waitFor();
        const box = await img.boundingBox();
        expect(box!.height).toBeGreaterThanOrEqual(40);
        expect(box!.width).toBeGreaterThanOrEqual(110);
        if (route === '/register') {
          await settle(page);
          await shot(page, `ui-text-captcha-register-${width}`);
        }
        await context.close();
      });
    }
  }

  it('says a wrong captcha once, without the field name in front', { timeout: 60_000 }, async () => {
    const { context, page } = await newPage(browser, { lang: 'en' });
    await page.goto(`${url}/#/login`);
    await page.fill('#username', 'admin');
    await page.fill('#password', server('plain').adminPassword);
    await solveCaptcha(page, { databaseUrl } as Server);
    await page.fill('#captcha', 'zzzz');
    await page.locator('form button[type=submit]').click();
    await page
      .getByText(/graphic captcha is wrong or expired/i)
      .first()
      .waitFor();
    expect(await page.getByText(/captcha: /i).count()).toBe(0);
    await context.close();
  });
});
