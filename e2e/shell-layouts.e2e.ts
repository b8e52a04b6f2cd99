import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launch, newPage, query, server, shot } from './browser.ts';
import { expectHash, login } from './flows.ts';
import { ADMIN_PASSWORD } from './global-setup.ts';

/**
 * The console's shell (SPEC §2 layout and navigation, §3 settings, §4, §9): the six layouts switched from
 * the theme drawer, themes and the dark scheme, Save / revert / restore / random / clear cache, the mobile
 * breakpoint, the persisted collapse, and menu records that open an external window or skip the column.
 */

const SETTINGS_KEY = 'admin-plus-layout';
const LAYOUTS = ['vertical', 'horizontal', 'column', 'comprehensive', 'common', 'float'] as const;
type LayoutName = (typeof LAYOUTS)[number];

const s = server('plain');
// the server serves the console at any path: the popup lands somewhere real, marked so it can be told apart
const EXTERNAL_URL = `${s.url}/?e2e-external=1#/404`;
const TEST_MENUS = ['E2eShellExternal', 'E2eShellDirect'];

let browser: Browser;

beforeAll(async () => {
  browser = await launch();
  // test-only menu records (read at login): an external link with a badge, and a group marked noColumn
  await query(s.databaseUrl, `DELETE FROM menus WHERE name = ANY($1)`, [TEST_MENUS]);
  await query(
    s.databaseUrl,
    `INSERT INTO menus (parent_id, path, name, component, meta, sort) VALUES (NULL, $1, 'E2eShellExternal', NULL, $2, 90)`,
    [EXTERNAL_URL, JSON.stringify({ title: 'e2e external', icon: 'api', target: '_blank', badge: 'New' })],
  );
  const [direct] = await query<{ id: string }>(
    s.databaseUrl,
    `INSERT INTO menus (parent_id, path, name, component, meta, sort) VALUES (NULL, '/e2eDirect', 'E2eShellDirect', 'Layout', $1, 91) RETURNING id`,
    [JSON.stringify({ title: 'e2e direct', icon: 'file', noColumn: true })],
  );
  await query(
    s.databaseUrl,
    `INSERT INTO menus (parent_id, path, name, component, meta, sort) VALUES ($1, 'first', 'E2eShellDirectFirst', 'error/404', $2, 0), ($1, 'second', 'E2eShellDirectSecond', 'error/403', $3, 1)`,
    [direct.id, JSON.stringify({ title: 'e2e direct first' }), JSON.stringify({ title: 'e2e direct second' })],
  );
});

afterAll(async () => {
  // children go with their parent (ON DELETE CASCADE)
  await query(s.databaseUrl, `DELETE FROM menus WHERE name = ANY($1)`, [TEST_MENUS]);
  await browser?.close();
});

async function signIn(page: Page): Promise<void> {
  await login(page, s, 'admin', ADMIN_PASSWORD);
  await expectHash(page, /^#\/device\/index/);
  await page.locator('[data-layout]').waitFor();
}

const shellAttr = (page: Page, name: string) => page.locator('.cpc-shell').first().getAttribute(name);

async function expectShell(page: Page, name: string, value: string): Promise<void> {
  await expect.poll(() => shellAttr(page, name)).toBe(value);
}

const drawer = (page: Page) => page.getByTestId('theme-drawer');

async function openDrawer(page: Page): Promise<void> {
  await page.getByTestId('theme-drawer-button').click();
  await drawer(page).waitFor();
}

async function saveDrawer(page: Page): Promise<void> {
  await page.getByTestId('theme-save').click();
  await drawer(page).waitFor({ state: 'hidden' });
}

async function closeDrawer(page: Page): Promise<void> {
  await drawer(page).locator('.ant-drawer-close').click();
  await drawer(page).waitFor({ state: 'hidden' });
}

/** Picks a layout in the drawer and saves it, so the page behind the drawer can be used. */
async function chooseLayout(page: Page, layout: LayoutName): Promise<void> {
  await openDrawer(page);
  await page.getByTestId(`layout-option-${layout}`).click();
  await saveDrawer(page);
  await expectShell(page, 'data-layout', layout);
}

const count = (page: Page, testId: string) => page.getByTestId(testId).count();
const css = (page: Page, selector: string, prop: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), prop);

/**
 * An item of the header's menu, wherever it is: in the bar, or folded into its "…" when the bar is full
 * (the menu grows with the product; the test must not depend on how much fits).
 */
async function topMenuItem(page: Page, title: string) {
  // the whole title: "System" must not pick "System integration"
  const text = new RegExp(`^\\s*${title}\\s*$`);
  const menu = page.getByTestId('header').getByTestId('top-menu');
  const inBar = menu.locator('li.ant-menu-overflow-item:not([aria-hidden="true"]):not(.ant-menu-overflow-item-rest)', {
    hasText: text,
  });
  if (await inBar.count()) return inBar.first();
  await menu.locator('.ant-menu-overflow-item-rest').hover();
  const folded = page.locator('.ant-menu-submenu-popup:visible li', { hasText: text }).first();
  await folded.waitFor();
  return folded;
}

/** Settings written as if saved, then the page reloaded: the quickest way to any arrangement. */
async function useSettings(page: Page, settings: Record<string, unknown>): Promise<void> {
  await page.evaluate(([key, value]) => localStorage.setItem(key, value), [
    SETTINGS_KEY,
    JSON.stringify({ state: settings, version: 1 }),
  ] as const);
  await page.reload();
  await page.locator('[data-layout]').waitFor();
}

/** The breadcrumbs in the bar `testId` end with the page `title`. */
async function breadcrumbsSay(page: Page, testId: 'header' | 'nav-bar', title: string): Promise<void> {
  const crumbs = page.getByTestId(testId).locator('.ant-breadcrumb li:not(.ant-breadcrumb-separator)');
  await expect.poll(async () => (await crumbs.last().textContent())?.trim()).toBe(title);
}

describe('the layouts', () => {
  it('switches every layout from the drawer, each with its own arrangement', async () => {
    const { context, page, errors } = await newPage(browser, { lang: 'en', width: 1440, height: 900 });
    await signIn(page);

    // vertical (the default): side menu, header with breadcrumbs
    await expectShell(page, 'data-layout', 'vertical');
    await page.getByTestId('side-bar').waitFor();
    expect(await page.getByTestId('header').locator('.ant-breadcrumb').count()).toBe(1);
    expect(await count(page, 'top-menu')).toBe(0);
    await page.getByTestId('side-bar').getByText('e2e external').waitFor();

    // horizontal: logo and the whole menu in the header, no side bar
    await chooseLayout(page, 'horizontal');
    expect(await count(page, 'side-bar')).toBe(0);
    const topMenu = page.getByTestId('header').getByTestId('top-menu');
    await topMenu.waitFor();
    expect(await topMenu.getAttribute('data-depth')).toBe('all');
    expect(await page.getByTestId('header').getByTestId('logo').count()).toBe(1);
    await (await topMenuItem(page, 'Error pages')).hover();
    await page.locator('.ant-menu-submenu-popup:visible').getByText('404').first().waitFor();
    await page.mouse.move(700, 600);
    // the header is the menu's: the breadcrumbs have a bar of their own below it
    await breadcrumbsSay(page, 'nav-bar', 'My devices');

    // column: the icon column of the first level, the selected group's children in a second column
    await chooseLayout(page, 'column');
    expect(await count(page, 'side-bar')).toBe(0);
    const bar = page.getByTestId('column-bar');
    await bar.locator('[data-key="/error"]').click();
    await expectHash(page, /^#\/error\/403/);
    const second = page.getByTestId('column-menu');
    await second.getByText('404').waitFor();
    expect(await bar.locator('[data-key="/error"]').getAttribute('aria-current')).toBe('page');
    await second.getByText('404').click();
    await expectHash(page, /^#\/error\/404/);
    await breadcrumbsSay(page, 'header', '404');
    // a group marked noColumn goes straight to its first page, with no second column
    await bar.locator('[data-key="/e2eDirect"]').click();
    await expectHash(page, /^#\/e2eDirect\/first/);
    await expect.poll(() => count(page, 'column-menu')).toBe(0);
    // the column styles shape the icon column's items
    for (const [style, label] of [
      ['vertical', 'Vertical'],
      ['horizontal', 'Horizontal'],
      ['arrow', 'Arrow'],
      ['card', 'Card'],
    ] as const) {
      await openDrawer(page);
      await page.getByTestId('setting-columnStyle').click();
      await page.locator('.ant-select-item-option').getByText(label, { exact: true }).click();
      await saveDrawer(page);
      await expect.poll(() => bar.getAttribute('data-column-style')).toBe(style);
    }
    await bar.locator('[data-key="/error"]').click();
    await page.getByTestId('column-menu').waitFor();
    // the fold button folds the second column away
    await page.getByTestId('fold-button').click();
    await expect.poll(() => count(page, 'column-menu')).toBe(0);
    await page.getByTestId('fold-button').click();
    await page.getByTestId('column-menu').waitFor();

    // comprehensive: the first level across the header, the selected one's children at the side
    await chooseLayout(page, 'comprehensive');
    const firstLevel = page.getByTestId('header').getByTestId('top-menu');
    expect(await firstLevel.getAttribute('data-depth')).toBe('first-level');
    await (await topMenuItem(page, 'Error pages')).click();
    await expectHash(page, /^#\/error\/403/);
    const side = page.getByTestId('side-bar');
    await side.getByText('404').waitFor();
    expect(await side.getByText('Identity review').count()).toBe(0);
    await (await topMenuItem(page, 'System')).click();
    await side.getByText('Identity review').waitFor();
    expect(await side.getByText('404').count()).toBe(0);
    await side.getByText('Identity review').click();
    await breadcrumbsSay(page, 'nav-bar', 'Identity review');

    // common: header across the top with the logo, side menu below it, no fixed header
    await chooseLayout(page, 'common');
    const topBar = page.getByTestId('top-bar');
    expect(await topBar.getByTestId('logo').count()).toBe(1);
    expect(await page.getByTestId('side-bar').getByTestId('logo').count()).toBe(0);
    const [top, sideBox] = [await topBar.boundingBox(), await page.getByTestId('side-bar').boundingBox()];
    expect(sideBox!.y).toBeGreaterThanOrEqual(top!.y + top!.height - 1);
    expect(await page.getByTestId('main-head').getAttribute('data-fixed')).toBe('false');
    await breadcrumbsSay(page, 'nav-bar', 'Identity review');
    await openDrawer(page);
    expect(await page.getByTestId('setting-fixedHeader').isDisabled()).toBe(true);
    await closeDrawer(page);

    // float: a detached, rounded side menu
    await chooseLayout(page, 'float');
    const floating = page.getByTestId('side-bar');
    expect(await floating.getAttribute('class')).toContain('cpc-side-bar--float');
    expect(await css(page, '[data-testid="side-bar"]', 'border-top-left-radius')).toBe('12px');
    expect((await floating.boundingBox())!.x).toBeGreaterThanOrEqual(10);
    await breadcrumbsSay(page, 'header', 'Identity review');
    await openDrawer(page);
    // no menu background art in the float (and horizontal) layout
    expect(await page.getByTestId('setting-background').isDisabled()).toBe(true);
    await page.getByTestId('layout-option-vertical').click();
    expect(await page.getByTestId('setting-background').isDisabled()).toBe(false);
    await page.getByTestId('setting-background').click();
    await expect.poll(() => css(page, '[data-testid="side-bar"]', 'background-image')).toContain('url(');
    await shot(page, 'shell-drawer-en');
    await page.getByTestId('setting-language').getByText('中文').click();
    await drawer(page).getByText('主题配置').first().waitFor();
    await shot(page, 'shell-drawer-zh-bottom');
    await drawer(page)
      .locator('.ant-drawer-body')
      .evaluate((el) => el.scrollTo(0, 0));
    await shot(page, 'shell-drawer-zh');
    await closeDrawer(page);
    await expectShell(page, 'data-layout', 'float');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('changes the primary and menu colours with the theme, and dark surfaces with the dark scheme', async () => {
    const { context, page, errors } = await newPage(browser, { lang: 'en', width: 1440, height: 900 });
    await signIn(page);
    await openDrawer(page);
    const save = '[data-testid="theme-save"]';
    const sideBar = '[data-testid="side-bar"]';
    expect(await css(page, save, 'background-color')).toBe('rgb(78, 136, 243)');
    expect(await css(page, sideBar, 'background-color')).toBe('rgb(33, 37, 43)');
    expect(await css(page, '.cpc-main', 'background-color')).toBe('rgb(246, 248, 249)');

    await page.getByTestId('theme-option-red-white').click();
    await expectShell(page, 'data-theme', 'red-white');
    await expect.poll(() => css(page, save, 'background-color')).toBe('rgb(245, 108, 108)');
    await expect.poll(() => css(page, sideBar, 'background-color')).toBe('rgb(255, 255, 255)');

    await page.getByTestId('theme-option-green-black').click();
    await expect.poll(() => css(page, save, 'background-color')).toBe('rgb(65, 181, 132)');
    await expect.poll(() => css(page, sideBar, 'background-color')).toBe('rgb(33, 37, 43)');

    await page.getByTestId('theme-option-ocean').click();
    await expect.poll(() => css(page, sideBar, 'background-image')).toContain('linear-gradient');
    await expect.poll(() => css(page, '[data-testid="header"]', 'background-image')).toContain('linear-gradient');

    await page.getByTestId('theme-option-blue-white').click();
    await page.getByTestId('setting-colorScheme').getByText('Dark').click();
    await expectShell(page, 'data-color-scheme', 'dark');
    await expect.poll(() => css(page, '[data-testid="header"]', 'background-color')).toBe('rgb(20, 20, 20)');
    await expect.poll(() => css(page, sideBar, 'background-color')).toBe('rgb(20, 20, 20)');
    await expect.poll(() => css(page, '.cpc-main', 'background-color')).toBe('rgb(0, 0, 0)');

    // closing without saving goes back to the saved theme
    await closeDrawer(page);
    await expectShell(page, 'data-theme', 'blue-black');
    await expectShell(page, 'data-color-scheme', 'light');
    expect(await css(page, sideBar, 'background-color')).toBe('rgb(33, 37, 43)');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('saving the settings', () => {
  it('persists Save across a reload, reverts unsaved changes, restores defaults, picks a random theme and clears the cache', async () => {
    const { context, page, errors } = await newPage(browser, { lang: 'en', width: 1440, height: 900 });
    await signIn(page);

    await openDrawer(page);
    await page.getByTestId('layout-option-column').click();
    await page.getByTestId('theme-option-purple-white').click();
    await drawer(page).getByTestId('theme-unsaved').waitFor();
    await saveDrawer(page);
    await page.reload();
    await expectShell(page, 'data-layout', 'column');
    await expectShell(page, 'data-theme', 'purple-white');

    // an unsaved change is gone after a reload…
    await openDrawer(page);
    await page.getByTestId('layout-option-horizontal').click();
    await expectShell(page, 'data-layout', 'horizontal');
    await page.reload();
    await expectShell(page, 'data-layout', 'column');
    // …and when the drawer closes
    await openDrawer(page);
    await page.getByTestId('layout-option-float').click();
    await expectShell(page, 'data-layout', 'float');
    await closeDrawer(page);
    await expectShell(page, 'data-layout', 'column');

    // restore default: the default layout and theme, stored
    await openDrawer(page);
    await page.getByTestId('theme-restore').click();
    await expectShell(page, 'data-layout', 'vertical');
    await expectShell(page, 'data-theme', 'blue-black');
    await closeDrawer(page);
    await page.reload();
    await expectShell(page, 'data-layout', 'vertical');
    await expectShell(page, 'data-theme', 'blue-black');

    // random theme: another theme at once
    await openDrawer(page);
    await page.getByTestId('theme-random').click();
    await expect.poll(() => shellAttr(page, 'data-theme')).not.toBe('blue-black');
    const random = await shellAttr(page, 'data-theme');
    await page.getByTestId('theme-random').click();
    await expect.poll(() => shellAttr(page, 'data-theme')).not.toBe(random);

    // clear cache: local storage emptied (after a confirm), the page reloads with the defaults
    await page.getByTestId('layout-option-common').click();
    await saveDrawer(page);
    await page.evaluate(() => localStorage.setItem('e2e-marker', '1'));
    await openDrawer(page);
    await page.getByTestId('theme-clear-cache').click();
    await Promise.all([page.waitForEvent('load'), page.getByTestId('clear-cache-ok').click()]);
    await page.locator('[data-layout]').waitFor();
    expect(await page.evaluate(() => localStorage.getItem('e2e-marker'))).toBeNull();
    expect(await page.evaluate((key) => localStorage.getItem(key), SETTINGS_KEY)).toBeNull();
    await expectShell(page, 'data-layout', 'vertical');
    // still signed in: the session lives in session storage
    await expectHash(page, /^#\/device\/index/);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('keeps the side bar folded across a reload, without Save', async () => {
    const { context, page, errors } = await newPage(browser, { lang: 'en', width: 1440, height: 900 });
    await signIn(page);
    await expectShell(page, 'data-collapsed', 'false');
    expect((await page.getByTestId('side-bar').boundingBox())!.width).toBe(256);
    await page.getByTestId('fold-button').click();
    await expectShell(page, 'data-collapsed', 'true');
    await expect.poll(async () => (await page.getByTestId('side-bar').boundingBox())!.width).toBe(64);
    await page.reload();
    await expectShell(page, 'data-collapsed', 'true');
    expect((await page.getByTestId('side-bar').boundingBox())!.width).toBe(64);
    await shot(page, 'shell-collapsed');
    await page.getByTestId('fold-button').click();
    await expectShell(page, 'data-collapsed', 'false');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('keeps the drawer 285 px wide, each header tool behind its switch, the header fixed while the page scrolls, and the menu lit for a page of its activeMenu', async () => {
    const { context, page, errors } = await newPage(browser, { lang: 'en', width: 1440, height: 600 });
    await signIn(page);
    await openDrawer(page);
    expect(Math.round((await drawer(page).boundingBox())!.width)).toBe(285);
    await closeDrawer(page);

    // every tool is there by default; each switch of SPEC §3 takes its own away and leaves the others
    const tools = page.getByTestId('header-tools');
    const TOOLS = {
      showSearch: 'search-button',
      showNotice: 'notice-bell',
      showFullScreen: 'full-screen',
      showRefresh: 'refresh-page',
      showLanguage: 'language-toggle',
      showTheme: 'theme-drawer-button',
    } as const;
    for (const testId of Object.values(TOOLS)) await tools.getByTestId(testId).waitFor();
    for (const [setting, testId] of Object.entries(TOOLS)) {
      await useSettings(page, { [setting]: false });
      await page.getByTestId('header-tools').waitFor();
      expect(await tools.getByTestId(testId).count(), setting).toBe(0);
      const others = Object.values(TOOLS).filter((t) => t !== testId);
      for (const other of others) expect(await tools.getByTestId(other).count(), `${other} without ${setting}`).toBe(1);
    }

    // a fixed header stays at the top while a long page scrolls under it; without it, it scrolls away
    await useSettings(page, { fixedHeader: true });
    await page.goto(`${s.url}/#/e2eDirect/first`);
    await page.evaluate(() => {
      const filler = document.createElement('div');
      filler.style.height = '3000px';
      document.querySelector('.cpc-content')!.appendChild(filler);
      window.scrollTo(0, 1200);
    });
    await expect.poll(async () => Math.round((await page.getByTestId('header').boundingBox())!.y)).toBe(0);
    await useSettings(page, { fixedHeader: false });
    await page.evaluate(() => {
      const filler = document.createElement('div');
      filler.style.height = '3000px';
      document.querySelector('.cpc-content')!.appendChild(filler);
      window.scrollTo(0, 1200);
    });
    await expect.poll(async () => (await page.getByTestId('header').boundingBox())!.y).toBeLessThan(-100);

    // a page hidden from the menu lights the item its activeMenu names (the device detail → My devices)
    await useSettings(page, {});
    await page.goto(`${s.url}/#/device/detail?id=1`);
    await expectHash(page, /^#\/device\/detail/);
    await expect
      .poll(() => page.getByTestId('side-bar').locator('.ant-menu-item-selected').innerText())
      .toBe('My devices');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('paints each of the nine themes with its own primary colour', async () => {
    const { context, page, errors } = await newPage(browser, { lang: 'en', width: 1440, height: 900 });
    await signIn(page);
    const PRIMARY: Record<string, string> = {
      'blue-black': 'rgb(78, 136, 243)',
      'blue-white': 'rgb(78, 136, 243)',
      'green-black': 'rgb(65, 181, 132)',
      'green-white': 'rgb(65, 181, 132)',
      'purple-black': 'rgb(105, 84, 240)',
      'purple-white': 'rgb(105, 84, 240)',
      'red-black': 'rgb(245, 108, 108)',
      'red-white': 'rgb(245, 108, 108)',
      ocean: 'rgb(62, 141, 247)',
    };
    await openDrawer(page);
    for (const [theme, colour] of Object.entries(PRIMARY)) {
      await page.getByTestId(`theme-option-${theme}`).click();
      await expectShell(page, 'data-theme', theme);
      await expect
        .poll(() => css(page, '[data-testid="theme-save"]', 'background-color'), { message: theme })
        .toBe(colour);
      // the menu: dark for "-black" and ocean, light for "-white"
      const dark = !theme.endsWith('-white');
      expect(await page.getByTestId('side-bar').getAttribute('class'), theme).toMatch(
        dark ? /cpc-on-dark/ : /^(?!.*cpc-on-dark)/,
      );
    }
    await closeDrawer(page);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('is vertical and folded below 992px, and the chosen layout returns when the window widens', async () => {
    const { context, page, errors } = await newPage(browser, { lang: 'zh', width: 1440, height: 900 });
    await signIn(page);
    await chooseLayout(page, 'column');
    await page.setViewportSize({ width: 900, height: 800 });
    await expectShell(page, 'data-layout', 'vertical');
    await expectShell(page, 'data-mobile', 'true');
    await expectShell(page, 'data-collapsed', 'true');
    expect(await count(page, 'column-bar')).toBe(0);
    expect(
      await page
        .getByTestId('side-bar')
        .isVisible()
        .catch(() => false),
    ).toBe(false);
    // the fold button opens the menu as a drawer, which closes after a choice
    await page.getByTestId('fold-button').click();
    const mobileMenu = page.getByTestId('mobile-menu');
    await mobileMenu.getByText('系统管理', { exact: true }).waitFor();
    await page.setViewportSize({ width: 375, height: 812 });
    // the drawer has slid all the way in
    await expect.poll(async () => (await mobileMenu.boundingBox())?.x).toBe(0);
    await shot(page, 'shell-mobile-menu-zh');
    await mobileMenu.getByText('错误页').click();
    await mobileMenu.getByText('404').click();
    await expectHash(page, /^#\/error\/404/);
    await mobileMenu.waitFor({ state: 'hidden' });
    // the header still fits at 375px
    const tools = await page.getByTestId('header-tools').boundingBox();
    expect(tools!.x + tools!.width).toBeLessThanOrEqual(375);
    // the edge itself: 991 px is a phone's layout, 992 px a desktop's (SPEC §9)
    await page.setViewportSize({ width: 991, height: 800 });
    await expectShell(page, 'data-mobile', 'true');
    await page.setViewportSize({ width: 992, height: 800 });
    await expectShell(page, 'data-mobile', 'false');
    await page.setViewportSize({ width: 1440, height: 900 });
    await expectShell(page, 'data-layout', 'column');
    await page.getByTestId('column-bar').waitFor();
    expect(await page.evaluate((key) => JSON.parse(localStorage.getItem(key)!).state.layout, SETTINGS_KEY)).toBe(
      'column',
    );
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('menu records', () => {
  it('opens an external link in a new window and leaves the console where it was', async () => {
    const { context, page, errors } = await newPage(browser, { lang: 'en', width: 1440, height: 900 });
    await signIn(page);
    const item = page.getByTestId('side-bar').getByText('e2e external');
    await item.waitFor();
    await expect.poll(() => page.getByTestId('side-bar').locator('.ant-badge').getByText('New').count()).toBe(1);
    const [popup] = await Promise.all([context.waitForEvent('page'), item.click()]);
    await popup.waitForLoadState();
    expect(popup.url()).toContain('e2e-external=1');
    expect(new URL(page.url()).hash).toMatch(/^#\/device\/index/);
    await popup.close();
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('screenshots', () => {
  // every layout in a light and a dark theme, at 1440 and at 375 wide; light in zh, dark in en
  const LOOKS: Record<LayoutName, [light: Record<string, unknown>, dark: Record<string, unknown>]> = {
    vertical: [{ themeName: 'blue-black', background: 'vab-background' }, { themeName: 'ocean' }],
    horizontal: [{ themeName: 'green-white' }, { themeName: 'blue-black' }],
    column: [
      { themeName: 'purple-black', background: 'vab-background' },
      { themeName: 'green-white', columnStyle: 'arrow' },
    ],
    comprehensive: [{ themeName: 'red-white' }, { themeName: 'purple-black', background: 'vab-background' }],
    common: [{ themeName: 'ocean', background: 'vab-background' }, { themeName: 'red-black' }],
    float: [{ themeName: 'blue-white' }, { themeName: 'green-black' }],
  };

  for (const scheme of ['light', 'dark'] as const) {
    it(`shows each layout in a ${scheme} theme`, async () => {
      const lang = scheme === 'light' ? 'zh' : 'en';
      const { context, page, errors } = await newPage(browser, { lang, width: 1440, height: 900 });
      await signIn(page);
      await page.goto(`${s.url}/#/system/identity`);
      await expectHash(page, /^#\/system\/identity/);
      for (const layout of LAYOUTS) {
        const look = LOOKS[layout][scheme === 'light' ? 0 : 1];
        await page.setViewportSize({ width: 1440, height: 900 });
        await useSettings(page, { layout, colorScheme: scheme, ...look });
        await expectShell(page, 'data-layout', layout);
        await expectShell(page, 'data-color-scheme', scheme);
        await page.locator('.ant-table').first().waitFor();
        await page.waitForLoadState('networkidle');
        await shot(page, `layout-${layout}-${scheme}-${lang}-1440`);
        await page.setViewportSize({ width: 375, height: 812 });
        await expectShell(page, 'data-layout', 'vertical');
        await shot(page, `layout-${layout}-${scheme}-${lang}-375`);
      }
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});
