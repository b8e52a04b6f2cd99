import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launch, newPage, server, shot, settle } from './browser.ts';
import { expectHash, login } from './flows.ts';

/**
 * The tab bar and the kept pages behind it (SPEC §2 tabs, §3 visited tab, §9 keep-alive): tabs for
 * visited pages, every close action from the dropdown and the right-click menu, pages that keep what
 * the user typed and how far they scrolled, refresh, the three tab styles, logout.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

type Server = ReturnType<typeof server>;
type Settings = Record<string, unknown>;

const IDENTITY = '/system/identity';

/** Layout settings as the theme drawer stores them, in place before the console starts. */
const storeSettings = (page: Page, settings: Settings) =>
  page.evaluate((state) => localStorage.setItem('admin-plus-layout', JSON.stringify({ state, version: 1 })), settings);

async function signIn(page: Page, s: Server): Promise<void> {
  await login(page, s, 'admin', s.adminPassword);
  await expectHash(page, /^#\/device\/index/);
  await page.locator('[data-testid="tabs-bar"]').waitFor();
}

/** Opens a page the way a typed address or a link does, and waits until it is on screen. */
async function visit(page: Page, s: Server, path: string): Promise<void> {
  await page.goto(`${s.url}/#${path}`);
  await pageShown(page, path);
}

const pageShown = (page: Page, path: string) =>
  page.locator(`[data-page-path="${path}"]`).waitFor({ state: 'visible', timeout: 15_000 });

const tabPaths = (page: Page) =>
  page.locator('[data-tab-path]').evaluateAll((els) => els.map((el) => el.getAttribute('data-tab-path')));

const activeTab = (page: Page) => page.locator('[data-tab-path][aria-selected="true"]').getAttribute('data-tab-path');

const tab = (page: Page, path: string) => page.locator(`[data-tab-path="${path}"]`);

const hashPath = (page: Page) => new URL(page.url()).hash.slice(1);

/** Picks an action from the bar's dropdown (it acts on the active tab). */
async function fromDropdown(page: Page, action: string): Promise<void> {
  await noMenuOpen(page);
  await page.locator('[data-testid="tabs-actions"]').click();
  await page.locator(`.ant-dropdown:not(.ant-dropdown-hidden) [data-tab-action="${action}"]`).click();
}

/** The menu of the previous action has faded out: two open menus would make the pick ambiguous. */
async function noMenuOpen(page: Page): Promise<void> {
  await expect.poll(() => page.locator('.ant-dropdown:not(.ant-dropdown-hidden)').count()).toBe(0);
}

/** Picks an action from a tab's right-click menu. */
async function fromContextMenu(page: Page, path: string, action: string): Promise<void> {
  await noMenuOpen(page);
  await tab(page, path).click({ button: 'right' });
  await page.locator(`.ant-dropdown:not(.ant-dropdown-hidden) [data-tab-action="${action}"]`).click();
}

/** How far the page area is scrolled: its nearest scrolling ancestor, else the document. */
const areaScrollTop = (page: Page, path: string) =>
  page.evaluate((p) => {
    const el = document.querySelector(`[data-page-path="${p}"]`);
    for (let node = el?.parentElement; node && node !== document.body; node = node.parentElement) {
      if (/(auto|scroll|overlay)/.test(getComputedStyle(node).overflowY) && node.scrollHeight > node.clientHeight)
        return node.scrollTop;
    }
    return (document.scrollingElement ?? document.documentElement).scrollTop;
  }, path);

async function picture(page: Page, name: string): Promise<void> {
  await settle(page);
  await shot(page, name);
}

const filterInput = (page: Page) => page.locator(`[data-page-path="${IDENTITY}"] .ant-input-search input`);

const ALL_PAGES = ['/index', '/device/index', IDENTITY, '/error/403', '/error/404', '/person/info'];

async function openAll(page: Page, s: Server): Promise<void> {
  for (const path of ALL_PAGES) await visit(page, s, path);
  await expect.poll(() => tabPaths(page)).toEqual(ALL_PAGES);
}

describe('visited pages become tabs', () => {
  it('adds a tab per page, the home tab first and without a close button; a click opens its page', async () => {
    const s = server('plain');
    const { context, page, errors } = await newPage(browser, { lang: 'en' });
    await signIn(page, s);
    // the home dashboard is always there, first; the landing page follows
    await expect.poll(() => tabPaths(page)).toEqual(['/index', '/device/index']);
    expect(await activeTab(page)).toBe('/device/index');
    expect(await tab(page, '/index').getByRole('button').count()).toBe(0);

    await visit(page, s, IDENTITY);
    await visit(page, s, '/error/403');
    await visit(page, s, IDENTITY);
    await expect.poll(() => tabPaths(page)).toEqual(['/index', '/device/index', IDENTITY, '/error/403']);
    expect(await activeTab(page)).toBe(IDENTITY);
    // the menu's redirects do not make tabs of their own
    await visit(page, s, '/index');
    await page.goto(`${s.url}/#/device`);
    await expectHash(page, /^#\/device\/index$/);
    await expect.poll(() => tabPaths(page)).toEqual(['/index', '/device/index', IDENTITY, '/error/403']);

    await tab(page, '/error/403').click();
    await expectHash(page, /^#\/error\/403$/);
    await pageShown(page, '/error/403');
    // only the active page is visible; the others are kept, hidden
    expect(await page.locator('[data-page-path]:visible').count()).toBe(1);
    expect(await page.locator('[data-page-path]').count()).toBeGreaterThanOrEqual(3);
    expect(await page.title()).toBe('403 - cloud printing');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('kept pages', () => {
  it('keep what was typed and how far the page was scrolled; refresh and reopening start afresh', async () => {
    const s = server('plain');
    // a short window, so the review page scrolls
    const { context, page, errors } = await newPage(browser, { lang: 'en', width: 1280, height: 420 });
    await signIn(page, s);
    await visit(page, s, IDENTITY);
    await filterInput(page).fill('kept filter');
    await page.mouse.move(700, 300);
    await page.mouse.wheel(0, 600);
    await expect.poll(() => areaScrollTop(page, IDENTITY)).toBeGreaterThan(40);
    const scrolled = await areaScrollTop(page, IDENTITY);

    // another tab and back
    await tab(page, '/device/index').click();
    await pageShown(page, '/device/index');
    expect(await areaScrollTop(page, '/device/index')).toBe(0);
    await tab(page, IDENTITY).click();
    await pageShown(page, IDENTITY);
    expect(await filterInput(page).inputValue()).toBe('kept filter');
    expect(Math.abs((await areaScrollTop(page, IDENTITY)) - scrolled)).toBeLessThanOrEqual(1);
    await picture(page, 'tabs-kept-page-en');

    // refresh from the dropdown: the page is mounted anew
    await fromDropdown(page, 'refresh');
    await expect.poll(() => filterInput(page).inputValue()).toBe('');
    await expectHash(page, /^#\/system\/identity$/);

    // the header's refresh button does the same
    await filterInput(page).fill('typed again');
    await page.locator('[data-testid="refresh-page"]').click();
    await expect.poll(() => filterInput(page).inputValue()).toBe('');

    // closing the tab drops the page; opening it again gives a fresh one
    await filterInput(page).fill('about to close');
    await tab(page, IDENTITY).getByRole('button').click();
    await expect.poll(() => tabPaths(page)).toEqual(['/index', '/device/index']);
    await expectHash(page, /^#\/device\/index$/);
    await expect.poll(() => page.locator(`[data-page-path="${IDENTITY}"]`).count()).toBe(0);
    await visit(page, s, IDENTITY);
    expect(await filterInput(page).inputValue()).toBe('');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('closing tabs', () => {
  it('closes others, left, right and all from the dropdown', async () => {
    const s = server('plain');
    const { context, page, errors } = await newPage(browser, { lang: 'en' });
    await signIn(page, s);
    await openAll(page, s);
    await picture(page, 'tabs-dropdown-before-en');

    await tab(page, IDENTITY).click();
    await pageShown(page, IDENTITY);
    await page.locator('[data-testid="tabs-actions"]').click();
    await page.locator('.ant-dropdown:not(.ant-dropdown-hidden) [data-tab-action="closeLeft"]').waitFor();
    await picture(page, 'tabs-dropdown-open-en');
    await page.locator('.ant-dropdown:not(.ant-dropdown-hidden) [data-tab-action="closeLeft"]').click();
    // the home tab cannot be closed
    await expect.poll(() => tabPaths(page)).toEqual(['/index', IDENTITY, '/error/403', '/error/404', '/person/info']);
    expect(hashPath(page)).toBe(IDENTITY);

    await fromDropdown(page, 'closeRight');
    await expect.poll(() => tabPaths(page)).toEqual(['/index', IDENTITY]);
    expect(hashPath(page)).toBe(IDENTITY);

    await visit(page, s, '/error/403');
    await visit(page, s, '/error/404');
    await fromDropdown(page, 'closeOthers');
    await expect.poll(() => tabPaths(page)).toEqual(['/index', '/error/404']);
    expect(hashPath(page)).toBe('/error/404');

    await visit(page, s, '/device/index');
    await fromDropdown(page, 'closeAll');
    await expect.poll(() => tabPaths(page)).toEqual(['/index']);
    await expectHash(page, /^#\/index$/);
    await pageShown(page, '/index');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('closes from the right-click menu of any tab, the active one included', async () => {
    const s = server('plain');
    const { context, page, errors } = await newPage(browser, { lang: 'zh' });
    await signIn(page, s);
    await openAll(page, s);
    // active: /person/info, the last one

    await tab(page, '/error/403').click({ button: 'right' });
    await page.locator('.ant-dropdown:not(.ant-dropdown-hidden) [data-tab-action="closeRight"]').waitFor();
    await picture(page, 'tabs-context-menu-zh');
    // closing to the right of 403 closes the active tab: the last one left opens
    await page.locator('.ant-dropdown:not(.ant-dropdown-hidden) [data-tab-action="closeRight"]').click();
    await expect.poll(() => tabPaths(page)).toEqual(['/index', '/device/index', IDENTITY, '/error/403']);
    await expectHash(page, /^#\/error\/403$/);

    await fromContextMenu(page, IDENTITY, 'closeLeft');
    await expect.poll(() => tabPaths(page)).toEqual(['/index', IDENTITY, '/error/403']);
    expect(hashPath(page)).toBe('/error/403');

    await fromContextMenu(page, IDENTITY, 'closeOthers');
    await expect.poll(() => tabPaths(page)).toEqual(['/index', IDENTITY]);
    await expectHash(page, /^#\/system\/identity$/);

    await visit(page, s, '/error/404');
    await fromContextMenu(page, '/index', 'closeAll');
    await expect.poll(() => tabPaths(page)).toEqual(['/index']);
    await expectHash(page, /^#\/index$/);

    // the home tab's own "close" is greyed out
    await tab(page, '/index').click({ button: 'right' });
    const close = page.locator('.ant-dropdown:not(.ant-dropdown-hidden) .ant-dropdown-menu-item', {
      has: page.locator('[data-tab-action="close"]'),
    });
    await expect.poll(() => close.getAttribute('aria-disabled')).toBe('true');
    await page.keyboard.press('Escape');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('closing the active tab with its × lands on the last tab', async () => {
    const s = server('plain');
    const { context, page, errors } = await newPage(browser, { lang: 'en' });
    await signIn(page, s);
    await openAll(page, s);
    await tab(page, '/error/403').click();
    await pageShown(page, '/error/403');
    await tab(page, '/error/403').getByRole('button').click();
    await expectHash(page, /^#\/person\/info$/);
    expect(await activeTab(page)).toBe('/person/info');
    // closing a tab that is not active stays where it is
    await tab(page, '/device/index').getByRole('button').click();
    await expect.poll(() => tabPaths(page)).toEqual(['/index', IDENTITY, '/error/404', '/person/info']);
    expect(hashPath(page)).toBe('/person/info');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('the tab bar settings', () => {
  const STYLES = ['card', 'smart', 'smooth'] as const;

  /** What sets the styles apart, read from the active and an inactive tab. */
  const look = (page: Page) =>
    page.evaluate(() => {
      const read = (el: Element | null) => {
        if (!el) return null;
        const c = getComputedStyle(el);
        return {
          bg: c.backgroundColor,
          color: c.color,
          border: c.borderTopWidth,
          radius: c.borderTopLeftRadius,
          height: c.height,
        };
      };
      return {
        active: read(document.querySelector('[data-tab-path][aria-selected="true"]')),
        other: read(document.querySelector('[data-tab-path][aria-selected="false"]')),
      };
    });

  it.each(['zh', 'en'] as const)(
    'draws card, smart and smooth tabs, light and dark (%s)',
    { timeout: 180_000 },
    async (lang) => {
      const s = server('plain');
      const { context, page, errors } = await newPage(browser, { lang });
      await signIn(page, s);
      const looks = new Map<string, string>();
      for (const colorScheme of ['light', 'dark'] as const) {
        for (const tabsBarStyle of STYLES) {
          await storeSettings(page, { tabsBarStyle, colorScheme, showTabsIcon: true });
          await page.goto(`${s.url}/#/device/index`);
          await page.reload();
          await page.locator(`[data-testid="tabs-bar"][data-style="${tabsBarStyle}"]`).waitFor({ timeout: 15_000 });
          for (const path of ['/device/index', '/error/403', IDENTITY]) await visit(page, s, path);
          await expect.poll(() => tabPaths(page)).toEqual(['/index', '/device/index', '/error/403', IDENTITY]);
          // away from the tabs: no hover effect in what is compared and drawn
          await page.mouse.move(5, 600);
          await settle(page);
          looks.set(`${colorScheme}-${tabsBarStyle}`, JSON.stringify(await look(page)));
          await shot(page, `tabs-${tabsBarStyle}-${colorScheme}-${lang}`);
        }
      }
      // every style looks different from the others, in each scheme
      for (const scheme of ['light', 'dark']) {
        const distinct = new Set(STYLES.map((st) => looks.get(`${scheme}-${st}`)));
        expect(distinct.size).toBe(STYLES.length);
      }
      // and the dark scheme is not the light one
      expect(looks.get('dark-card')).not.toBe(looks.get('light-card'));
      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it('shows the route icons or not, and no bar at all when tabs are off', async () => {
    const s = server('plain');
    const { context, page } = await newPage(browser, { lang: 'en' });
    await signIn(page, s);
    await storeSettings(page, { showTabsIcon: false });
    await page.reload();
    await tab(page, '/device/index').waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-tab-path] .anticon:not(.anticon-close)').count()).toBe(0);
    await storeSettings(page, { showTabsIcon: true });
    await page.reload();
    await tab(page, '/device/index').waitFor({ timeout: 15_000 });
    expect(await tab(page, '/device/index').locator('.anticon-printer').count()).toBe(1);
    await storeSettings(page, { showTabs: false });
    await page.reload();
    await pageShown(page, '/device/index');
    expect(await page.locator('[data-testid="tabs-bar"]').count()).toBe(0);
    await context.close();
  });

  it('animates the page coming to the front only when page transitions are on', async () => {
    const s = server('plain');
    const { context, page } = await newPage(browser, { lang: 'en' });
    // count the entrance animations started on the page area
    await context.addInitScript(() => {
      const original = Element.prototype.animate;
      (window as unknown as { pageAnimations: number }).pageAnimations = 0;
      Element.prototype.animate = function (this: Element, ...args: Parameters<Element['animate']>) {
        if (this.querySelector('[data-page-path]')) (window as unknown as { pageAnimations: number }).pageAnimations++;
        return original.apply(this, args);
      };
    });
    const animations = () => page.evaluate(() => (window as unknown as { pageAnimations: number }).pageAnimations);
    await signIn(page, s);
    await visit(page, s, '/error/403');
    const before = await animations();
    await tab(page, '/device/index').click();
    await pageShown(page, '/device/index');
    await expect.poll(animations).toBeGreaterThan(before);

    await storeSettings(page, { showPageTransition: false });
    await page.reload();
    await pageShown(page, '/device/index');
    await visit(page, s, '/error/403');
    const off = await animations();
    await tab(page, '/device/index').click();
    await pageShown(page, '/device/index');
    await tab(page, '/error/403').click();
    await pageShown(page, '/error/403');
    expect(await animations()).toBe(off);
    await context.close();
  });
});

describe('on a phone', () => {
  it('scrolls the tabs sideways and keeps the active one in view', async () => {
    const s = server('plain');
    for (const lang of ['zh', 'en'] as const) {
      const { context, page, errors } = await newPage(browser, { lang, width: 375, height: 740 });
      await signIn(page, s);
      await openAll(page, s);
      const bar = page.locator('[data-testid="tabs-bar"] [role="tablist"]');
      expect(await bar.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
      const inView = () =>
        page.evaluate(() => {
          const list = document.querySelector('[data-testid="tabs-bar"] [role="tablist"]')!.getBoundingClientRect();
          const active = document.querySelector('[data-tab-path][aria-selected="true"]')!.getBoundingClientRect();
          return active.left >= list.left - 1 && active.right <= list.right + 1;
        });
      await expect.poll(inView).toBe(true);
      await picture(page, `tabs-mobile-${lang}`);
      // back to the first tab: the bar scrolls to it
      await tab(page, '/index').click();
      await expectHash(page, /^#\/index$/);
      await expect.poll(inView).toBe(true);
      expect(errors).toEqual([]);
      await context.close();
    }
  });
});

describe('logout', () => {
  it('forgets the visited tabs', async () => {
    const s = server('plain');
    const { context, page } = await newPage(browser, { lang: 'en' });
    await signIn(page, s);
    await openAll(page, s);
    await page.locator('[data-testid="avatar-menu"]').click();
    // the menu's own entry: a page behind it may offer a "Log out" of its own (a sub-account's forced logout)
    await page.locator('.ant-dropdown-menu').filter({ visible: true }).getByText('Log out', { exact: true }).click();
    await expectHash(page, /^#\/login/);
    await signIn(page, s);
    await expect.poll(() => tabPaths(page)).toEqual(['/index', '/device/index']);
    await context.close();
  });
});
