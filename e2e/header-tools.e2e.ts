import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launch, newPage, query, server, settle, shot, uniqueName } from './browser.ts';
import { expectHash, login } from './flows.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

type Lang = 'zh' | 'en';
/** Polls wait on the server and a re-render; on a busy machine that can take a few seconds. */
const SLOW = { timeout: 10_000 };
type Scheme = 'light' | 'dark';

/** The admin, signed in, on My devices. Dark mode through the stored layout settings, as a user would keep it. */
async function signIn(lang: Lang, opts: { scheme?: Scheme; width?: number; height?: number; init?: () => void } = {}) {
  const s = server('plain');
  const session = await newPage(browser, { lang, width: opts.width, height: opts.height });
  if (opts.scheme === 'dark') {
    await session.context.addInitScript(() => {
      if (!localStorage.getItem('admin-plus-layout'))
        localStorage.setItem('admin-plus-layout', JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }));
    });
  }
  if (opts.init) await session.context.addInitScript(opts.init);
  await login(session.page, s, 'admin', s.adminPassword);
  await expectHash(session.page, /^#\/device\/index/);
  await session.page.getByTestId('header-tools').waitFor();
  return { s, ...session };
}

const T = {
  zh: { mail: '邮件', wrong: '请输入正确的密码', search: '审核', review: '实名审核', dismiss: '暂不显示' },
  en: {
    mail: 'Mail',
    wrong: 'please enter the correct password',
    search: 'identity',
    review: 'Identity review',
    dismiss: 'Do not show',
  },
} as const;

/** A screenshot once opening animations (a modal's zoom, a popover's fade) are over; endless ones (a pulsing dot) do not count. */
async function settledShot(page: Page, name: string) {
  await settle(page);
  await shot(page, name);
}

async function adminIds(databaseUrl: string) {
  const [row] = await query<{ id: string; tenant_id: string }>(
    databaseUrl,
    "SELECT id, tenant_id FROM users WHERE username = 'admin'",
  );
  return row;
}

async function openNoticePopover(page: Page) {
  await page.getByTestId('notice-bell').click();
  await page.getByTestId('notice-popover').waitFor();
}

describe('full screen', () => {
  it('toggles the whole page in and out of full screen', async () => {
    const { context, page } = await signIn('en');
    const button = page.getByTestId('full-screen');
    await button.click();
    await page.waitForFunction(() => document.fullscreenElement === document.documentElement);
    await expect.poll(() => button.getAttribute('aria-pressed'), SLOW).toBe('true');
    await button.click();
    await page.waitForFunction(() => document.fullscreenElement === null);
    await expect.poll(() => button.getAttribute('aria-pressed'), SLOW).toBe('false');
    await context.close();
  });
});

describe('notice popover', () => {
  it('shows a published notice (sanitised) and the user’s own message, and marks messages read', async () => {
    const s = server('plain');
    const tag = uniqueName('n');
    const admin = await adminIds(s.databaseUrl);
    await query(s.databaseUrl, 'INSERT INTO notices (title, body_html, pinned) VALUES ($1, $2, true)', [
      `Maintenance ${tag}`,
      '<p>Printing pauses on <strong>Sunday 02:00</strong>.</p><img src="x" onerror="window.__xss = 1">',
    ]);
    await query(
      s.databaseUrl,
      'INSERT INTO messages (tenant_id, user_id, kind, title, body) VALUES ($1, $2, $3, $4, $5), ($1, $2, $3, $6, $5)',
      [
        admin.tenant_id,
        admin.id,
        'work_order_replied',
        `Work order replied ${tag}`,
        'Staff answered your work order.',
        `Second message ${tag}`,
      ],
    );

    const { context, page, errors } = await signIn('en');
    // the badge counts the unread notice and the two unread messages
    const bell = page.getByTestId('notice-bell');
    await expect
      .poll(async () => Number(/\d+/.exec((await bell.getAttribute('aria-label')) ?? '')?.[0] ?? 0), SLOW)
      .toBeGreaterThanOrEqual(3);

    await openNoticePopover(page);
    const notice = page.getByTestId('notice-item').filter({ hasText: `Maintenance ${tag}` });
    await notice.waitFor();
    await notice.getByText('Sunday 02:00').waitFor();
    expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
    await settledShot(page, 'header-notice-popover-en');

    await page.getByTestId('notice-popover').getByRole('tab', { name: /Mail/ }).click();
    const first = page.getByTestId('message-item').filter({ hasText: `Work order replied ${tag}` });
    await first.waitFor();
    expect(await first.getAttribute('data-unread')).toBe('true');
    await settledShot(page, 'header-notice-mail-en');
    await first.click();
    await expect.poll(() => first.getAttribute('data-unread'), SLOW).toBe('false');
    const [read] = await query<{ n: string }>(
      s.databaseUrl,
      'SELECT count(*) AS n FROM messages WHERE user_id = $1 AND read_at IS NULL',
      [admin.id],
    );
    expect(Number(read.n)).toBe(1);

    await page.getByRole('button', { name: 'Mark all read' }).click();
    const second = page.getByTestId('message-item').filter({ hasText: `Second message ${tag}` });
    await expect.poll(() => second.getAttribute('data-unread'), SLOW).toBe('false');
    // messages read: the bell counts only the announcements still unread (opening one reads it)
    await page.keyboard.press('Escape');
    const [unreadNotices] = await query<{ n: string }>(
      s.databaseUrl,
      `SELECT count(*) AS n FROM notices n WHERE n.state = 'published' AND n.published_at <= now()
        AND (n.ends_at IS NULL OR n.ends_at > now())
        AND NOT EXISTS (SELECT 1 FROM notice_reads r WHERE r.notice_id = n.id AND r.user_id = $1)`,
      [admin.id],
    );
    const left = Number(unreadNotices.n);
    expect(left).toBeGreaterThanOrEqual(1);
    await expect
      .poll(() => bell.getAttribute('aria-label'), SLOW)
      .toBe(left === 1 ? 'Notifications (1 unread)' : `Notifications (${left} unread)`);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('search', () => {
  it.each(['en', 'zh'] as const)(
    'finds the identity review page by part of its title and opens it on Enter (%s)',
    async (lang) => {
      const { context, page } = await signIn(lang);
      await page.getByTestId('search-button').click();
      const input = page.locator('.menu-search input');
      await input.waitFor();
      await input.pressSequentially(T[lang].search, { delay: 40 });
      const option = page.locator('.menu-search [role=option]', { hasText: T[lang].review });
      await option.waitFor();
      expect(await option.getAttribute('aria-selected')).toBe('true');
      await settledShot(page, `header-search-${lang}`);
      await input.press('Enter');
      await expectHash(page, /^#\/system\/identity/);
      await page.locator('.menu-search input').waitFor({ state: 'detached' });
      await context.close();
    },
  );

  it('moves through the suggestions with the arrow keys', async () => {
    const { context, page } = await signIn('en');
    await page.getByTestId('search-button').click();
    const input = page.locator('.menu-search input');
    await input.pressSequentially('/error', { delay: 40 });
    const options = page.locator('.menu-search [role=option]');
    await expect.poll(() => options.count(), SLOW).toBe(2);
    await input.press('ArrowDown');
    await expect.poll(() => options.nth(1).getAttribute('aria-selected'), SLOW).toBe('true');
    await input.press('Enter');
    await expectHash(page, /^#\/error\/404/);
    await context.close();
  });
});

describe('clock', () => {
  it('ticks', async () => {
    const { context, page } = await signIn('zh');
    const clock = page.getByTestId('clock');
    const before = await clock.innerText();
    await expect.poll(() => clock.innerText(), { timeout: 5000 }).not.toBe(before);
    await context.close();
  });
});

describe('screen lock', () => {
  it('covers every page through reloads and navigation, refuses a wrong password and opens with the right one', async () => {
    const { s, context, page, errors } = await signIn('en');
    expect(await page.locator('.ant-layout-sider').count()).toBeGreaterThan(0);
    await page.getByTestId('lock-button').click();
    const lock = page.getByTestId('lock-screen');
    await lock.waitFor();
    expect(await page.locator('.ant-layout-sider').count()).toBe(0);
    await page.getByTestId('lock-user').getByText('admin').waitFor();

    await page.reload();
    await lock.waitFor();
    // another page is no way around it
    await page.goto(`${s.url}/#/system/identity`);
    await expectHash(page, /^#\/system\/identity/);
    await lock.waitFor();
    expect(await page.evaluate(() => document.getElementById('root')?.hasAttribute('inert'))).toBe(true);
    await settledShot(page, 'header-lock-screen-en');

    await lock.locator('input[type=password]').fill('Wrong-password-1');
    await lock.getByRole('button', { name: 'Unlock' }).click();
    await lock.getByText(T.en.wrong).waitFor();
    await settledShot(page, 'header-lock-screen-wrong-en');

    await lock.locator('input[type=password]').fill(s.adminPassword);
    await lock.getByRole('button', { name: 'Unlock' }).click();
    await lock.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.getElementById('root')?.hasAttribute('inert'))).toBe(false);
    await page.locator('.ant-layout-sider').first().waitFor();
    await page.reload();
    await page.getByTestId('header-tools').waitFor();
    expect(await lock.count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('locks and opens every tab of the console together', async () => {
    const { s, context, page } = await signIn('en');
    const other = await context.newPage();
    // a tab has its own session (the token lives in sessionStorage); the lock is the browser's
    await login(other, s, 'admin', s.adminPassword);
    await expectHash(other, /^#\/device\/index/);
    await other.getByTestId('header-tools').waitFor();
    await page.getByTestId('lock-button').click();
    await page.getByTestId('lock-screen').waitFor();
    await other.getByTestId('lock-screen').waitFor();
    await other.getByTestId('lock-screen').locator('input[type=password]').fill(s.adminPassword);
    await other.getByTestId('lock-screen').getByRole('button', { name: 'Unlock' }).click();
    await other.getByTestId('lock-screen').waitFor({ state: 'detached' });
    await page.getByTestId('lock-screen').waitFor({ state: 'detached' });
    await context.close();
  });

  it('logs out from the lock screen; the next login starts unlocked', async () => {
    const { s, context, page } = await signIn('zh');
    await page.getByTestId('lock-button').click();
    const lock = page.getByTestId('lock-screen');
    await lock.waitFor();
    await lock.locator('input[type=password]').fill('错的密码xyz');
    await lock.getByRole('button', { name: /解\s*锁/ }).click();
    await lock.getByText(T.zh.wrong).waitFor();
    await settledShot(page, 'header-lock-screen-zh');
    await lock.getByRole('button', { name: /退出登录/ }).click();
    await expectHash(page, /^#\/login/);
    expect(await lock.count()).toBe(0);
    await login(page, s, 'admin', s.adminPassword);
    await expectHash(page, /^#\/device\/index/);
    await page.getByTestId('header-tools').waitFor();
    expect(await lock.count()).toBe(0);
    await context.close();
  });
});

describe('error log', () => {
  it('lists a failed call and a thrown UI error with their page; "do not show" hides it until the next error', async () => {
    const { context, page } = await signIn('en');
    const button = page.getByTestId('error-log-button');
    expect(await button.count()).toBe(0);

    // a call the server refuses, through the console's own request layer
    await page.route('**/apiAdmin/message/unreadCount', (route) =>
      route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: JSON.stringify({ code: 500, msg: 'e2e forced failure', data: null }),
      }),
    );
    await page.goto(page.url().replace(/#.*$/, '#/system/identity'));
    await page.reload();
    await button.waitFor();
    // a UI error nobody caught
    await page.evaluate(() =>
      setTimeout(() => {
        throw new Error('e2e thrown UI error');
      }),
    );
    await expect.poll(() => button.locator('.ant-badge-count').getAttribute('title'), SLOW).toBe('2');

    await button.click();
    const panel = page.locator('.error-log-panel');
    const failed = panel.locator('.ant-collapse-item', { hasText: 'e2e forced failure' });
    const thrown = panel.locator('.ant-collapse-item', { hasText: 'e2e thrown UI error' });
    await failed.waitFor();
    await thrown.waitFor();
    expect(await failed.getByTestId('error-log-url').innerText()).toBe('/system/identity');
    expect(await thrown.getByTestId('error-log-url').innerText()).toBe('/system/identity');
    // the newest is open: the stack of the thrown error
    await thrown.getByText('Stack').waitFor();
    await failed.locator('.ant-collapse-header').click();
    await failed.getByText('/message/unreadCount').first().waitFor();
    await settledShot(page, 'header-error-log-en');

    // a reload (the crash page's way out) keeps the log
    await page.keyboard.press('Escape');
    await page.unroute('**/apiAdmin/message/unreadCount');
    await page.reload();
    await button.click();
    await thrown.waitFor();
    await failed.waitFor();

    await panel.getByTestId('error-log-dismiss').click();
    await button.waitFor({ state: 'detached' });
    await page.evaluate(() =>
      setTimeout(() => {
        throw new Error('e2e another UI error');
      }),
    );
    await button.waitFor();
    await context.close();
  });
});

describe('avatar menu', () => {
  it('offers personal info, personal centre, sub-accounts and logout', async () => {
    const { context, page } = await signIn('en');
    await page.getByTestId('avatar-menu').click();
    const menu = page.locator('.ant-dropdown-menu');
    for (const label of ['Personal info', 'Personal centre', 'Sub-accounts', 'Log out'])
      await menu.getByText(label, { exact: true }).waitFor();
    await menu.getByText('Personal info', { exact: true }).click();
    await expectHash(page, /^#\/person\/info/);
    await page.getByTestId('profile-name').filter({ visible: true }).waitFor();
    // each entry opens its page (SPEC §2: /setting/personalCenter, the same page as /person/info, and /person/subAccount)
    for (const [label, hash, ready] of [
      ['Personal centre', /^#\/person\/info/, '[data-testid="profile-name"]'],
      ['Sub-accounts', /^#\/person\/subAccount/, '[data-page-path="/person/subAccount"] .ant-table'],
    ] as const) {
      await page.getByTestId('avatar-menu').click();
      await page.locator('.ant-dropdown-menu').filter({ visible: true }).getByText(label, { exact: true }).click();
      await expectHash(page, hash);
      await page.locator(ready).filter({ visible: true }).first().waitFor();
    }
    await context.close();
  });
});

describe('progress bar', () => {
  it('runs while a call is slow, and not when the setting is off', async () => {
    const { context, page } = await signIn('en');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/apiAdmin/message/getList*', async (route) => {
      await held;
      await route.continue();
    });
    // the bar of the login's navigation has faded out first
    await page.locator('#nprogress').waitFor({ state: 'detached', timeout: 5000 });
    await openNoticePopover(page);
    // the bar's own element is a zero-size holder of fixed-position children
    await page.locator('#nprogress .bar').waitFor();
    release();
    await page.locator('#nprogress').waitFor({ state: 'detached', timeout: 5000 });

    await page.keyboard.press('Escape');
    await page.evaluate(() => {
      const stored = JSON.parse(localStorage.getItem('admin-plus-layout') ?? '{"state":{},"version":1}');
      stored.state.showProgressBar = false;
      localStorage.setItem('admin-plus-layout', JSON.stringify(stored));
    });
    await page.reload();
    await page.getByTestId('header-tools').waitFor();
    await page.locator('#nprogress').waitFor({ state: 'detached', timeout: 5000 });
    let releaseAgain!: () => void;
    const heldAgain = new Promise<void>((resolve) => (releaseAgain = resolve));
    await page.unroute('**/apiAdmin/message/getList*');
    let seen = false;
    await page.route('**/apiAdmin/message/getList*', async (route) => {
      seen = true;
      await heldAgain;
      await route.continue();
    });
    await openNoticePopover(page);
    await expect.poll(() => seen, SLOW).toBe(true);
    // well past the delay of the bar, it still has not appeared
    await page.waitForTimeout(1000);
    expect(await page.locator('#nprogress').count()).toBe(0);
    releaseAgain();
    await context.close();
  });
});

describe('old-browser notice', () => {
  it('asks a browser without structuredClone to switch, and stays dismissed for the session', async () => {
    const { context, page } = await signIn('en', {
      init: () => {
        delete (window as { structuredClone?: unknown }).structuredClone;
      },
    });
    const notice = page.locator('#old-browser-notice');
    await notice.waitFor();
    await notice.getByText('structuredClone').waitFor();
    await settledShot(page, 'header-old-browser-en');
    await notice.getByRole('button', { name: /close/i }).click();
    await notice.waitFor({ state: 'detached' });
    await page.reload();
    await page.getByTestId('header-tools').waitFor();
    expect(await notice.count()).toBe(0);
    await context.close();
  });

  it('tells the visitor on the sign-in page already, in the chosen language', async () => {
    const s = server('plain');
    const { context, page } = await newPage(browser, { lang: 'zh' });
    await context.addInitScript(() => {
      delete (window as { structuredClone?: unknown }).structuredClone;
    });
    await page.goto(`${s.url}/#/login`);
    const notice = page.locator('#old-browser-notice');
    await notice.getByText('您的浏览器版本过低').waitFor();
    await notice.getByText('structuredClone', { exact: false }).waitFor();
    expect(await page.locator('#username').isVisible()).toBe(true);
    await context.close();
  });

  it('shows a browser that cannot run the console at all a message in both languages instead of a blank page', async () => {
    const s = server('plain');
    const { context, page } = await newPage(browser, { lang: 'en' });
    await context.addInitScript(() => {
      delete (window as { structuredClone?: unknown }).structuredClone;
    });
    // what an old engine does with modern code: it cannot parse the entry script
    await page.route(/\/assets\/index-[^/]+\.js$/, (route) =>
      route.fulfill({ status: 200, contentType: 'text/javascript', body: 'const x = a ?.. b;' }),
    );
    await page.goto(`${s.url}/#/login`);
    const message = page.locator('#old-browser-page');
    await message.getByText('您的浏览器版本过低').waitFor();
    await message.getByText('Your browser is out of date').waitFor();
    await shot(page, 'old-browser-page');
    await context.close();
  });

  it('says nothing in a modern browser', async () => {
    const { context, page } = await signIn('zh');
    expect(await page.locator('#old-browser-notice').count()).toBe(0);
    await context.close();
  });
});

describe('screenshots in both languages and both colour schemes', () => {
  it.each([
    ['zh', 'light'],
    ['en', 'dark'],
    ['zh', 'dark'],
  ] as const)('popover, search, error log and lock screen (%s, %s)', async (lang, scheme) => {
    const { s, context, page } = await signIn(lang, { scheme });
    const name = (part: string) => `header-${part}-${lang}-${scheme}`;
    const admin = await adminIds(s.databaseUrl);
    await query(
      s.databaseUrl,
      'INSERT INTO messages (tenant_id, user_id, kind, title, body) VALUES ($1, $2, $3, $4, $5)',
      [
        admin.tenant_id,
        admin.id,
        'traffic_low',
        lang === 'zh' ? '流量不足提醒' : 'Data running low',
        lang === 'zh' ? '设备 SN0001 的流量剩余不足 10%。' : 'Device SN0001 has less than 10% of its data left.',
      ],
    );
    await openNoticePopover(page);
    await page.getByTestId('notice-item').first().waitFor();
    await settledShot(page, name('notice'));
    await page
      .getByTestId('notice-popover')
      .getByRole('tab', { name: new RegExp(T[lang].mail) })
      .click();
    await page.getByTestId('message-item').first().waitFor();
    await settledShot(page, name('mail'));
    await page.keyboard.press('Escape');

    await page.getByTestId('search-button').click();
    await page.locator('.menu-search input').pressSequentially(T[lang].search, { delay: 40 });
    await page.locator('.menu-search [role=option]').first().waitFor();
    await settledShot(page, name('search'));
    await page.keyboard.press('Escape');
    await page.locator('.menu-search input').waitFor({ state: 'detached' });

    await page.evaluate(() =>
      setTimeout(() => {
        throw new Error('Cannot read properties of undefined (reading "sn")');
      }),
    );
    await page.getByTestId('error-log-button').click();
    await page.locator('.error-log-panel .ant-collapse-item').first().waitFor();
    await settledShot(page, name('error-log'));
    await page.locator('.error-log-panel').getByTestId('error-log-dismiss').click();

    await page.getByTestId('lock-button').click();
    await page.getByTestId('lock-screen').waitFor();
    await settledShot(page, name('lock'));
    await context.close();
  });

  it('at phone width (375 px)', async () => {
    const { context, page } = await signIn('zh', { width: 375, height: 740 });
    // the menu search is there at phone width too
    await page.getByTestId('search-button').click();
    await page.locator('.menu-search input').pressSequentially(T.zh.search, { delay: 40 });
    await page.locator('.menu-search [role=option]', { hasText: T.zh.review }).waitFor();
    await settledShot(page, 'header-search-zh-375');
    await page.keyboard.press('Escape');
    await page.locator('.menu-search input').waitFor({ state: 'detached' });
    await openNoticePopover(page);
    await page.getByTestId('notice-item').first().waitFor();
    await settledShot(page, 'header-notice-zh-375');
    await page.keyboard.press('Escape');
    await page.getByTestId('lock-button').click();
    await page.getByTestId('lock-screen').waitFor();
    await settledShot(page, 'header-lock-zh-375');
    await context.close();
  });
});
