import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createDb } from '../apps/server/src/db/database.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs, SIM_MODEL } from '../apps/device-sim/src/specs.ts';
import { launch, newPage, query, server, settle, shot } from './browser.ts';
import { approveAccount, openAfterApproval, login, registerThroughUi, expectHash } from './flows.ts';

/**
 * Every screen in en shows no Chinese, and in zh no untranslated English sentence (issue 11). The test data is
 * ASCII so that what it finds is the console's own text; data and codes are left out of the zh check.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

const HAN = /\p{Script=Han}+/gu;
// three or more English words in a row; the language switch names the other language in its own script
const SENTENCE = /\b[A-Za-z]{2,}(?:[ ,'-]+[A-Za-z]{2,}){2,}\b/g;
const OTHER_LANGUAGE = ['中文', '简体中文'];

/** The visible text of the page, without what `skip` names (user data, the language switch). */
const visibleText = (page: Page) => page.evaluate(() => document.body.innerText);

/** Lines with Chinese left once `data` (what users typed: names of models, devices, accounts) is taken out. */
function hanIn(text: string, data: string[] = []): string[] {
  let rest = text;
  for (const d of data) rest = rest.split(d).join(' ');
  const lines = rest.split('\n').filter((l) => HAN.test(l) && !OTHER_LANGUAGE.includes(l.trim()));
  HAN.lastIndex = 0;
  return lines.map((l) => l.trim());
}

/**
 * Names stored by the other browser tests on this shared server (staff pages list every tenant's): data, not the
 * console's text. Longest first, so a name is taken out before a shorter one inside it.
 */
async function storedNames(databaseUrl: string): Promise<string[]> {
  const rows = await query<{ v: string }>(
    databaseUrl,
    `SELECT name AS v FROM device_models UNION SELECT name FROM devices UNION SELECT remark FROM devices
     UNION SELECT name FROM device_groups UNION SELECT attest_name FROM tenants UNION SELECT username FROM users
     UNION SELECT nickname FROM users UNION SELECT name FROM app_keys UNION SELECT real_name FROM identity_submissions
     UNION SELECT company_name FROM identity_submissions UNION SELECT legal_person FROM identity_submissions
     UNION SELECT name FROM departments UNION SELECT name FROM roles UNION SELECT name FROM traffic_packages
     UNION SELECT package_name FROM order_lines UNION SELECT refund_reason FROM orders
     UNION SELECT title FROM work_orders UNION SELECT title FROM notices
     UNION SELECT name FROM packages UNION SELECT name FROM upgrade_releases UNION SELECT file_name FROM file_requests
     UNION SELECT file_name FROM ocr_jobs UNION SELECT name FROM device_apps
     -- messages other browser tests put in as they are (the server's own kinds are dotted and said by key)
     UNION SELECT title FROM messages WHERE kind NOT LIKE '%.%' UNION SELECT body FROM messages WHERE kind NOT LIKE '%.%'`,
  );
  return rows
    .map((r) => r.v)
    .filter((v) => v && v.trim())
    .sort((x, y) => y.length - x.length);
}

function englishIn(text: string, data: string[]): string[] {
  let rest = text;
  for (const d of data) rest = rest.split(d).join(' ');
  return [...rest.matchAll(SENTENCE)].map((m) => m[0]);
}

async function open(page: Page, url: string, path: string): Promise<void> {
  await page.goto(`${url}/#${path}`);
  await page.locator(`[data-page-path="${path}"]`).waitFor({ state: 'visible', timeout: 20_000 });
  await page.waitForLoadState('networkidle');
  // lazy parts (tables, charts) settle after the first answer
  await page.waitForTimeout(800);
}

const CUSTOMER_PAGES = [
  '/index',
  '/device/index',
  '/device/map',
  '/integration/index',
  '/person/info',
  '/person/subAccount',
  '/flowRate/mallGoods',
  '/flowRate/flowRateLog',
  '/workbench/index',
  '/workOrder/workOrderIndex',
  '/workOrder/edit',
  '/notice/noticeIndex',
  '/message/messageIndex',
  '/application/myApplication',
  '/application/applicationInstall',
  '/application/fileAcquisition',
  '/upgrade/deviceUpgrade',
  '/upgrade/upgradeTask',
  '/aiLibrary/terminal',
  '/aiLibrary/cloud',
  '/push/pushTask',
  '/push/pushQuery',
  '/systemCustom/bootAnimation',
  '/systemCustom/customDesktop',
  '/systemCustom/customWallpaper',
  '/systemCustom/defaultStartApp',
  '/systemCustom/topScreenMode',
  '/systemCustom/appLock',
  '/fence/index',
  '/fence/fenceSetting',
];
const STAFF_PAGES = [
  '/system/identity',
  '/system/deviceModel',
  '/system/deviceRegistry',
  '/flowRate/mallGoods',
  '/flowRate/flowRateLog',
  '/workbench/index',
  '/workOrder/workOrderIndex',
  '/notice/noticeIndex',
  '/message/messageIndex',
  '/error/403',
  '/error/404',
];

describe('translations', () => {
  it('shows every screen of a customer and of staff in the language chosen', { timeout: 600_000 }, async () => {
    const s = server('plain');
    const found: Record<string, string[]> = {};
    const data = [
      SIM_MODEL.name,
      'Printer-01',
      'Printer-02',
      'Test User',
      'Cloud Print Console',
      'Paper jam',
      'Maintenance notice',
    ];

    // a customer with two devices and the message an identity approval sends
    const { context, page } = await newPage(browser, { lang: 'en', width: 1440 });
    const reg = await registerThroughUi(page, s, 'individual');
    data.push(reg.username);
    await approveAccount(s, reg.username, 'Test User');
    const specs = makeSpecs(2, { seed: 3, prefix: `TR${Date.now().toString(36).toUpperCase().slice(-6)}` });
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
        { name: (sn) => (sn === specs[0].sn ? 'Printer-01' : 'Printer-02') },
      );
      await query(
        s.databaseUrl,
        `INSERT INTO messages (tenant_id, user_id, kind, title, body) SELECT tenant_id, id, 'identity.reviewed', 'Identity authentication approved', '' FROM users WHERE username = $1`,
        [reg.username],
      );
    } finally {
      await db.destroy();
    }
    // a work order of the customer and an announcement, so their detail pages show a record
    const [{ id: workOrderId }] = await query<{ id: number }>(
      s.databaseUrl,
      `INSERT INTO work_orders (order_no, tenant_id, user_id, type, priority, title, description_html,
         response_due_at, resolve_due_at)
       SELECT 'WO-TRANSLATIONS', tenant_id, id, 'printing', 'normal', 'Paper jam', '<p>Printer-01</p>',
         now() + interval '1 hour', now() + interval '1 day' FROM users WHERE username = $1 RETURNING id`,
      [reg.username],
    );
    const [{ id: noticeId }] = await query<{ id: number }>(
      s.databaseUrl,
      `INSERT INTO notices (title, body_html) VALUES ('Maintenance notice', '<p>Printer-02</p>') RETURNING id`,
    );
    const [{ id: deviceId }] = await query<{ id: number }>(s.databaseUrl, 'SELECT id FROM devices WHERE sn = $1', [
      specs[0].sn,
    ]);
    await openAfterApproval(page, s);

    for (const lang of ['en', 'zh'] as const) {
      await page.evaluate((l) => localStorage.setItem('language', l), lang);
      await page.reload();
      for (const path of [
        ...CUSTOMER_PAGES,
        `/device/detail?id=${deviceId}`,
        `/workOrder/detail?id=${workOrderId}`,
        `/notice/detail?id=${noticeId}`,
      ]) {
        await open(page, s.url, path);
        const text = await visibleText(page);
        // the package catalogue is the platform's: names staff (other tests) stored show to every customer
        const stored = await storedNames(s.databaseUrl);
        const bad = lang === 'en' ? hanIn(text, stored) : englishIn(text, [...data, ...specs.map((d) => d.sn)]);
        if (bad.length) found[`customer ${lang} ${path}`] = bad;
      }
      // the bell's mail tab: the identity message in the reader's language
      await page.getByTestId('notice-bell').click();
      await page.getByTestId('notice-popover').waitFor();
      await page
        .getByTestId('notice-popover')
        .getByRole('tab', { name: lang === 'en' ? 'Mail' : '邮件' })
        .click();
      await page.getByTestId('message-item').first().waitFor();
      await page.waitForTimeout(500);
      const text = await visibleText(page);
      const bad = lang === 'en' ? hanIn(text) : englishIn(text, data);
      if (bad.length) found[`customer ${lang} notices`] = bad;
      await page.keyboard.press('Escape');
    }
    await shot(page, 'translations-customer');
    await context.close();

    const staff = await newPage(browser, { lang: 'en', width: 1440 });
    await login(staff.page, s, 'admin', s.adminPassword);
    await expectHash(staff.page, /^#\/device\/index/);
    for (const lang of ['en', 'zh'] as const) {
      await staff.page.evaluate((l) => localStorage.setItem('language', l), lang);
      await staff.page.reload();
      for (const path of [...STAFF_PAGES, `/workOrder/detail?id=${workOrderId}`]) {
        await open(staff.page, s.url, path);
        const text = await visibleText(staff.page);
        const stored = await storedNames(s.databaseUrl);
        const bad = lang === 'en' ? hanIn(text, stored) : englishIn(text, [...data, ...stored, 'admin']);
        if (bad.length) found[`staff ${lang} ${path}`] = bad;
      }
    }
    await staff.context.close();

    // a field error said in zh follows the switch to en
    const anon = await newPage(browser, { lang: 'zh' });
    await anon.page.goto(`${s.url}/#/login`);
    await anon.page.locator('form button[type=submit]').click();
    await anon.page.locator('.ant-form-item-explain-error, .lite-field-error, [role=alert]').first().waitFor();
    await anon.page.locator('.auth-lang button').filter({ hasText: 'EN' }).click();
    await anon.page.waitForTimeout(500);
    const switched = hanIn(await visibleText(anon.page));
    if (switched.length) found['login en after switch'] = switched;
    await settle(anon.page);
    await shot(anon.page, 'translations-login-switched');
    // the same on the register form (antd's form)
    await anon.page.locator('.auth-lang button').filter({ hasText: '中文' }).click();
    await anon.page.goto(`${s.url}/#/register`);
    await anon.page.locator('#mobile').waitFor();
    await anon.page.locator('form button[type=submit]').click();
    await anon.page.locator('.ant-form-item-explain-error').first().waitFor();
    await anon.page.locator('.auth-lang button').filter({ hasText: 'EN' }).click();
    await anon.page.waitForTimeout(800);
    const register = hanIn(await visibleText(anon.page));
    if (register.length) found['register en after switch'] = register;
    await anon.context.close();

    expect(found).toEqual({});
  });
});
