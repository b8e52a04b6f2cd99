import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createDb } from '../apps/server/src/db/database.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs } from '../apps/device-sim/src/specs.ts';
import { launch, newPage, query, server, shot, uniqueName } from './browser.ts';
import { expectHash, login, registerThroughUi } from './flows.ts';
import { ADMIN_PASSWORD } from './global-setup.ts';

/**
 * The rules of the shell that the route records and the user's rights decide (SPEC §2, §3, §6, §9): which
 * groups open, red dots, hidden records, long groups, links that replace the console, tabs per query, pages
 * without a tab or without keep-alive, breadcrumbs, the 20 kept pages, the progress bar while a page's code
 * loads, the footer, the language kept across a reload, and a sub-account that sees only what its role allows.
 */

const s = server('plain');
const GROUP = 'E2eRules';
const SELF_LINK = 'E2eRulesSelfLink';
const SELF_URL = `${s.url}/?e2e-self=1#/404`;
/** Records behind a guard object of each mode (SPEC §6), seen by a viewer (device:view only) and the main account. */
const GUARDED: Array<[name: string, path: string, title: string, guard: Record<string, unknown>]> = [
  ['E2eGuardAllOf', '/e2eAllOf', 'e2e allOf', { permission: ['device:view', 'device:reboot'], mode: 'allOf' }],
  ['E2eGuardOneOf', '/e2eOneOf', 'e2e oneOf', { permission: ['device:view', 'device:reboot'], mode: 'oneOf' }],
  ['E2eGuardExcept', '/e2eExcept', 'e2e except', { permission: ['device:reboot'], mode: 'except' }],
  ['E2eGuardExceptView', '/e2eExceptView', 'e2e not for viewers', { permission: ['device:view'], mode: 'except' }],
];
const GUARDED_NAMES = GUARDED.map(([name]) => name);
const FILLERS = Array.from({ length: 14 }, (_, i) => `filler${String(i + 1).padStart(2, '0')}`);

let browser: Browser;
/** A customer with 25 bound devices (the tabs and keep-alive tests open their detail pages). */
let customer: { username: string; password: string; deviceIds: number[] } | undefined;

beforeAll(async () => {
  browser = await launch();
  await query(s.databaseUrl, `DELETE FROM menus WHERE name = ANY($1)`, [[GROUP, SELF_LINK, ...GUARDED_NAMES]]);
  for (const [i, [name, path, title, guard]] of GUARDED.entries()) {
    await query(
      s.databaseUrl,
      `INSERT INTO menus (parent_id, path, name, component, meta, sort) VALUES (NULL, $1, $2, 'error/404', $3, $4)`,
      [path, name, JSON.stringify({ title, icon: 'file', guard }), 80 + i],
    );
  }
  // first in the menu (sort -1), so it is "the first menu" that opens by default
  const [group] = await query<{ id: string }>(
    s.databaseUrl,
    `INSERT INTO menus (parent_id, path, name, component, meta, sort) VALUES (NULL, '/e2eRules', $1, 'Layout', $2, -1) RETURNING id`,
    [GROUP, JSON.stringify({ title: 'e2e rules', icon: 'file', guard: ['Admin'] })],
  );
  const children: Array<[string, string, Record<string, unknown>]> = [
    ['kept', 'identity/review', { title: 'e2e kept' }],
    ['fresh', 'identity/review', { title: 'e2e fresh', noKeepAlive: true }],
    ['notab', 'error/404', { title: 'e2e notab', tabHidden: true }],
    ['nocrumb', 'error/403', { title: 'e2e nocrumb', breadcrumbHidden: true }],
    ['dot', 'error/404', { title: 'e2e dot', dot: true }],
    ['secret', 'error/404', { title: 'e2e secret', hidden: true }],
    ...FILLERS.map((f): [string, string, Record<string, unknown>] => [f, 'error/404', { title: `e2e ${f}` }]),
  ];
  for (const [i, [path, component, meta]] of children.entries()) {
    await query(
      s.databaseUrl,
      `INSERT INTO menus (parent_id, path, name, component, meta, sort) VALUES ($1, $2, $3, $4, $5, $6)`,
      [group.id, path, `${GROUP}_${path}`, component, JSON.stringify(meta), i],
    );
  }
  await query(
    s.databaseUrl,
    `INSERT INTO menus (parent_id, path, name, component, meta, sort) VALUES (NULL, $1, $2, NULL, $3, 92)`,
    [SELF_URL, SELF_LINK, JSON.stringify({ title: 'e2e same window', icon: 'api', target: '_self', guard: ['Admin'] })],
  );
});

afterAll(async () => {
  await query(s.databaseUrl, `DELETE FROM menus WHERE name = ANY($1)`, [[GROUP, SELF_LINK, ...GUARDED_NAMES]]);
  await browser?.close();
});

async function signInAsAdmin(page: Page): Promise<void> {
  await login(page, s, 'admin', ADMIN_PASSWORD);
  await expectHash(page, /^#\/device\/index/);
  await page.locator('[data-testid="tabs-bar"]').waitFor();
}

const sideBar = (page: Page) => page.getByTestId('side-bar');
const group = (page: Page, title: string) =>
  sideBar(page)
    .locator('li.ant-menu-submenu')
    .filter({ has: page.locator('.ant-menu-submenu-title', { hasText: title }) });
const tabPaths = (page: Page) =>
  page.locator('[data-tab-path]').evaluateAll((els) => els.map((el) => el.getAttribute('data-tab-path')));
const keptPaths = (page: Page) =>
  page.locator('[data-page-path]').evaluateAll((els) => els.map((el) => el.getAttribute('data-page-path')));
const pageShown = (page: Page, path: string) =>
  page.locator(`[data-page-path="${path}"]`).waitFor({ state: 'visible', timeout: 15_000 });
const menuTitles = (page: Page) =>
  sideBar(page)
    .locator('.ant-menu-item, .ant-menu-submenu-title')
    .evaluateAll((els) => els.map((el) => el.textContent?.trim() ?? ''));
const breadcrumb = (page: Page) => page.locator('.ant-breadcrumb').filter({ visible: true }).first().innerText();

/** Signs in through the API (a fresh session of its own, so the browser's refresh cookie is left alone). */
async function apiLogin(username: string, password: string): Promise<string> {
  const captcha = (await (await fetch(`${s.url}/apiAdmin/captcha`)).json()).data as { captchaId: string };
  const [{ answer }] = await query<{ answer: string }>(s.databaseUrl, 'SELECT answer FROM captchas WHERE id = $1', [
    captcha.captchaId,
  ]);
  const res = await (
    await fetch(`${s.url}/apiAdmin/user/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password, captchaId: captcha.captchaId, captcha: answer }),
    })
  ).json();
  return res.data.token as string;
}

async function api<T>(
  token: string,
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
): Promise<{ code: number; msg: string; data: T }> {
  const res = await fetch(`${s.url}/apiAdmin${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return res.json();
}

describe('menu records', () => {
  it('opens the first group, keeps groups open together, shows a red dot, hides hidden records, scrolls a long group and follows a same-window link', async () => {
    const { context, page, errors } = await newPage(browser, { lang: 'en', width: 1440, height: 900 });
    await signInAsAdmin(page);
    const rules = group(page, 'e2e rules');
    await rules.waitFor();
    // SPEC §9: the first menu opens by default
    await expect.poll(() => rules.getAttribute('class')).toContain('ant-menu-submenu-open');
    // unique-open is off: opening another group leaves this one open
    const closedTitle = await sideBar(page)
      .locator('li.ant-menu-submenu:not(.ant-menu-submenu-open) > .ant-menu-submenu-title')
      .first()
      .innerText();
    const other = group(page, closedTitle);
    await other.locator('.ant-menu-submenu-title').click();
    await expect.poll(() => other.getAttribute('class')).toContain('ant-menu-submenu-open');
    expect(await rules.getAttribute('class')).toContain('ant-menu-submenu-open');

    // a red dot on its record, none on the others; the hidden record is not in the menu but opens by address
    await expect
      .poll(() => rules.locator('li.ant-menu-item', { hasText: 'e2e dot' }).locator('.ant-badge-dot').count())
      .toBe(1);
    expect(await rules.locator('.ant-badge-dot').count()).toBe(1);
    expect(await rules.getByText('e2e secret').count()).toBe(0);
    await page.goto(`${s.url}/#/e2eRules/secret`);
    await pageShown(page, '/e2eRules/secret');

    // more than 18 children: the group's list scrolls instead of pushing the menu off the screen
    expect(await rules.locator('li.ant-menu-item').count()).toBe(19);
    const list = rules.locator('ul.ant-menu-sub');
    await expect.poll(() => list.evaluate((el) => getComputedStyle(el).overflowY)).toBe('auto');
    expect(await list.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
    await shot(page, 'shell-rules-menu-en');

    // a link with target _self replaces the console in the same window
    await sideBar(page).getByText('e2e same window').click();
    await page.waitForURL((u) => u.searchParams.get('e2e-self') === '1');
    expect(context.pages()).toHaveLength(1);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('tabs and kept pages of the route records', () => {
  it('gives no tab to tabHidden pages, forgets a noKeepAlive page, and leaves breadcrumbHidden records out of the breadcrumbs', async () => {
    const { context, page, errors } = await newPage(browser, { lang: 'en', width: 1440, height: 900 });
    await signInAsAdmin(page);

    // a kept page remembers what was typed; the noKeepAlive page with the same screen does not
    for (const path of ['/e2eRules/kept', '/e2eRules/fresh']) {
      await page.goto(`${s.url}/#${path}`);
      await pageShown(page, path);
      await page.locator(`[data-page-path="${path}"] .ant-input-search input`).fill(`typed on ${path}`);
    }
    await page.goto(`${s.url}/#/device/index`);
    await pageShown(page, '/device/index');
    expect(await keptPaths(page)).not.toContain('/e2eRules/fresh');
    expect(await keptPaths(page)).toContain('/e2eRules/kept');
    for (const path of ['/e2eRules/kept', '/e2eRules/fresh']) {
      await page.locator(`[data-tab-path="${path}"]`).click();
      await pageShown(page, path);
    }
    await page.locator('[data-tab-path="/e2eRules/kept"]').click();
    await pageShown(page, '/e2eRules/kept');
    expect(await page.locator('[data-page-path="/e2eRules/kept"] .ant-input-search input').inputValue()).toBe(
      'typed on /e2eRules/kept',
    );
    await page.locator('[data-tab-path="/e2eRules/fresh"]').click();
    await pageShown(page, '/e2eRules/fresh');
    expect(await page.locator('[data-page-path="/e2eRules/fresh"] .ant-input-search input').inputValue()).toBe('');

    // tabHidden: the page opens, the bar does not grow
    const before = await tabPaths(page);
    await page.goto(`${s.url}/#/e2eRules/notab`);
    await pageShown(page, '/e2eRules/notab');
    expect(await tabPaths(page)).toEqual(before);

    // breadcrumbs: the group and the page, but not a record marked breadcrumbHidden
    await page.goto(`${s.url}/#/e2eRules/kept`);
    await pageShown(page, '/e2eRules/kept');
    await expect.poll(() => breadcrumb(page)).toMatch(/e2e rules\s*\/\s*e2e kept/);
    await page.goto(`${s.url}/#/e2eRules/nocrumb`);
    await pageShown(page, '/e2eRules/nocrumb');
    await expect.poll(() => breadcrumb(page)).toMatch(/e2e rules/);
    expect(await breadcrumb(page)).not.toContain('e2e nocrumb');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('a customer and a sub-account', () => {
  it(
    'shows the main account everything of its own and a viewer only what its role allows; staff pages are not there',
    { timeout: 180_000 },
    async () => {
      const { context, page, errors } = await newPage(browser, { lang: 'zh' });
      const reg = await registerThroughUi(page, s, 'individual');
      const [{ id: tenantId }] = await query<{ id: string }>(
        s.databaseUrl,
        `UPDATE tenants SET auth_status = 1, attest_name = '李四' WHERE id = (SELECT tenant_id FROM users WHERE username = $1) RETURNING id`,
        [reg.username],
      );
      const specs = makeSpecs(25, { seed: 31, prefix: `RUL${Date.now().toString(36).toUpperCase().slice(-6)}` });
      const db = createDb(s.databaseUrl, 2);
      try {
        await registerInDb(db, specs);
        await bindInDb(
          db,
          Number(tenantId),
          specs.map((d) => d.sn),
        );
      } finally {
        await db.destroy();
      }
      const rows = await query<{ id: string }>(s.databaseUrl, 'SELECT id FROM devices WHERE sn = ANY($1) ORDER BY sn', [
        specs.map((d) => d.sn),
      ]);
      customer = { username: reg.username, password: reg.password, deviceIds: rows.map((r) => Number(r.id)) };

      await page.reload();
      await page.goto(`${s.url}/#/device/index`);
      await expectHash(page, /^#\/device\/index/);
      await page.getByRole('button', { name: '绑定设备' }).first().waitFor();
      await sideBar(page).getByText('系统集成').waitFor();
      // staff records are not in the customer's menu, and their addresses are unknown to it
      expect(await sideBar(page).getByText('身份审核').count()).toBe(0);
      await page.goto(`${s.url}/#/error/403`);
      await expectHash(page, /^#\/404/);

      // the footer: copyright, this year, the product
      await page.goto(`${s.url}/#/device/index`);
      await expectHash(page, /^#\/device\/index/);
      await expect
        .poll(() => page.locator('.ant-layout-footer').filter({ visible: true }).first().innerText())
        .toBe(`版权所有 © ${new Date().getFullYear()} 云打印`);
      // guard objects: the main account holds every device permission
      expect(await menuTitles(page)).toEqual(expect.arrayContaining(['e2e allOf', 'e2e oneOf']));
      expect(await menuTitles(page)).not.toContain('e2e except');
      expect(await menuTitles(page)).not.toContain('e2e not for viewers');

      // a viewer sub-account (the tenant's default "Viewer" role: device:view only)
      const token = await apiLogin(reg.username, reg.password);
      const roles = await api<Array<{ id: number; code: string }>>(token, 'GET', '/system/subAccount/roles');
      const viewer = roles.data.find((r) => r.code === 'viewer');
      expect(viewer).toBeDefined();
      const sub = { username: uniqueName('viewer'), password: 'View3rPassw0rd' };
      const created = await api(token, 'POST', '/system/subAccount/create', {
        ...sub,
        confirmPassword: sub.password,
        roleIds: [viewer!.id],
      });
      expect(created.code).toBe(200);

      const other = await newPage(browser, { lang: 'zh' });
      await login(other.page, s, sub.username, sub.password);
      await expectHash(other.page, /^#\/device\/index/);
      await other.page.locator('tr[data-device-sn]').first().waitFor({ timeout: 15_000 });
      // no bind button, no integration in the menu: and the server refuses what the page does not offer
      expect(await other.page.getByRole('button', { name: '绑定设备' }).count()).toBe(0);
      expect(await sideBar(other.page).getByText('系统集成').count()).toBe(0);
      // guard objects for a viewer: oneOf passes with device:view, allOf does not without device:reboot, except(reboot) passes, except(view) does not
      const seen = await menuTitles(other.page);
      expect(seen).toEqual(expect.arrayContaining(['e2e oneOf', 'e2e except']));
      expect(seen).not.toContain('e2e allOf');
      expect(seen).not.toContain('e2e not for viewers');
      await other.page.goto(`${s.url}/#/e2eAllOf`);
      await expectHash(other.page, /^#\/404/);
      const bind = await api(await apiLogin(sub.username, sub.password), 'POST', '/device/bind', {
        sn: specs[0].sn,
        bindKey: 'ABCDEF',
      });
      expect(bind.code).toBe(403);
      await other.page.goto(`${s.url}/#/integration/index`);
      await expectHash(other.page, /^#\/404/);
      await shot(other.page, 'shell-rules-viewer-zh');
      expect(other.errors).toEqual([]);
      await other.context.close();
      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it('keeps the chosen language across a reload', async () => {
    expect(customer).toBeDefined();
    const { context, page, errors } = await newPage(browser, { lang: 'zh' });
    await login(page, s, customer!.username, customer!.password);
    await expectHash(page, /^#\/device\/index/);
    await page.getByTestId('language-toggle').getByText('EN').click();
    await sideBar(page).getByText('System integration').waitFor();
    await page.reload();
    await sideBar(page).getByText('System integration').waitFor();
    expect(await page.locator('.ant-layout-footer').filter({ visible: true }).first().innerText()).toContain(
      'Copyright ©',
    );
    expect(errors).toEqual([]);
    await context.close();
  });

  it(
    'opens a tab per device, keeps at most 20 pages (the least recently used goes) and keeps a table’s page',
    { timeout: 180_000 },
    async () => {
      expect(customer).toBeDefined();
      const { context, page, errors } = await newPage(browser, { lang: 'en', width: 1440, height: 900 });
      await login(page, s, customer!.username, customer!.password);
      await expectHash(page, /^#\/device\/index/);

      // the list's second page survives a trip to another tab
      await page.locator('.ant-pagination-item-2').filter({ visible: true }).click();
      await expect
        .poll(() => page.locator('.ant-pagination-item-active').filter({ visible: true }).innerText())
        .toBe('2');
      const listTab = (await tabPaths(page)).find((p) => p?.startsWith('/device/index'))!;
      await page.goto(`${s.url}/#/device/map`);
      await pageShown(page, '/device/map');
      await page.locator(`[data-tab-path="${listTab}"]`).click();
      await expect
        .poll(() => page.locator('.ant-pagination-item-active').filter({ visible: true }).innerText())
        .toBe('2');

      // dynamicNewTab: one tab per device; 21 details on top of the list, the map and home exceed 20 kept pages
      const ids = customer!.deviceIds.slice(0, 21);
      for (const id of ids) {
        await page.goto(`${s.url}/#/device/detail?id=${id}`);
        await pageShown(page, `/device/detail?id=${id}`);
      }
      const tabs = await tabPaths(page);
      for (const id of ids) expect(tabs).toContain(`/device/detail?id=${id}`);
      const kept = await keptPaths(page);
      expect(kept.length).toBeLessThanOrEqual(20);
      // the least recently used pages went first: the home page and the list, then the oldest details
      expect(kept).not.toContain(`/device/detail?id=${ids[0]}`);
      expect(kept).toContain(`/device/detail?id=${ids[20]}`);
      // its tab stays, and opens its page afresh
      await page.locator(`[data-tab-path="/device/detail?id=${ids[0]}"]`).click();
      await pageShown(page, `/device/detail?id=${ids[0]}`);
      expect((await keptPaths(page)).length).toBeLessThanOrEqual(20);
      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it('runs the progress bar while a page’s code is on its way', async () => {
    expect(customer).toBeDefined();
    const { context, page, errors } = await newPage(browser, { lang: 'en' });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = false;
    // the map's own chunk (its name starts with the page's file name)
    await page.route(/\/assets\/device-map-[\w-]+\.js$/, async (route) => {
      asked = true;
      await held;
      await route.continue();
    });
    await login(page, s, customer!.username, customer!.password);
    await expectHash(page, /^#\/device\/index/);
    await page.locator('#nprogress').waitFor({ state: 'detached', timeout: 5000 });
    await sideBar(page).getByText('Device map').click();
    await expect.poll(() => asked).toBe(true);
    await page.locator('#nprogress .bar').waitFor();
    release();
    await pageShown(page, '/device/map');
    await page.locator('#nprogress').waitFor({ state: 'detached', timeout: 5000 });
    expect(errors).toEqual([]);
    await context.close();
  });
});
