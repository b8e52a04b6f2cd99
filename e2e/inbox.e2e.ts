import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import pino from 'pino';
import { createDb, type Db } from '../apps/server/src/db/database.ts';
import { LiveEvents } from '../apps/server/src/plugins/live-events.ts';
import { sendMessages, type NewMessage } from '../apps/server/src/modules/inbox/index.ts';
import { launch, newPage, query, server, settle, shot, uniqueName } from './browser.ts';
import { expectHash, login } from './flows.ts';

/**
 * The message centre (issue 14) in the browser: a message sent by the server arrives in the bell's messages tab
 * live, without a reload; the full page lists, filters, marks all read and deletes. Messages are sent the way
 * the server's sections send them (sendMessages), announced over the live-event channel from this process, as
 * another server node would.
 */
let browser: Browser;
let db: Db;
let node: LiveEvents;
const s = server('plain');
const SLOW = { timeout: 15_000 };

beforeAll(async () => {
  browser = await launch();
  db = createDb(s.databaseUrl, 2);
  node = new LiveEvents(db, s.databaseUrl, pino({ level: 'silent' }));
});
afterAll(async () => {
  await node?.stop();
  await db?.destroy();
  await browser?.close();
});

async function admin() {
  const [row] = await query<{ id: string; tenant_id: string }>(
    s.databaseUrl,
    "SELECT id, tenant_id FROM users WHERE username = 'admin'",
  );
  return { userId: Number(row.id), tenantId: Number(row.tenant_id) };
}

async function send(messages: Array<Omit<NewMessage, 'tenantId' | 'userId'>>) {
  const who = await admin();
  const announce = await sendMessages(
    db,
    messages.map((m) => ({ ...who, ...m })),
  );
  announce(node);
  await node.flush();
}

async function signIn(lang: 'zh' | 'en', opts: { dark?: boolean; width?: number } = {}) {
  const session = await newPage(browser, { lang, width: opts.width });
  if (opts.dark) {
    await session.context.addInitScript(() => {
      if (!localStorage.getItem('admin-plus-layout'))
        localStorage.setItem('admin-plus-layout', JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }));
    });
  }
  await login(session.page, s, 'admin', s.adminPassword);
  await expectHash(session.page, /^#\/device\/index/);
  await session.page.getByTestId('header-tools').waitFor();
  return session;
}

const MAIL_TAB = { zh: /邮件/, en: /Mail/ };

async function openMessagesTab(page: Page, lang: 'zh' | 'en') {
  await page.getByTestId('notice-bell').click();
  await page.getByTestId('notice-popover').waitFor();
  await page.getByTestId('notice-popover').getByRole('tab', { name: MAIL_TAB[lang] }).click();
}

describe('the message centre', () => {
  it('a new message arrives live in the bell; the page filters, marks all read and deletes', async () => {
    const tag = uniqueName('m');
    const { context, page, errors } = await signIn('en');
    await openMessagesTab(page, 'en');
    const popover = page.getByTestId('notice-popover');
    await popover.getByTestId('inbox-view-all').waitFor();
    const bell = page.getByTestId('notice-bell');
    const badge = async () => Number(/\d+/.exec((await bell.getAttribute('aria-label')) ?? '')?.[0] ?? 0);
    const before = await badge();

    // the server sends one: it appears while the popover is open, no reload
    await send([
      {
        kind: 'device.fault',
        title: 'inbox.deviceFaultOut',
        body: `SN-${tag} · Front desk`,
        link: '/device/index',
      },
    ]);
    const arrived = popover.getByTestId('message-item').filter({ hasText: `SN-${tag}` });
    await arrived.waitFor(SLOW);
    expect(await arrived.getAttribute('data-unread')).toBe('true');
    await arrived.getByText('Printer out of paper').waitFor();
    await expect.poll(badge, SLOW).toBe(before + 1);
    await settle(page);
    await shot(page, 'inbox-popover-en-light');

    // clicking it reads it and opens its page
    await arrived.click();
    await expectHash(page, /^#\/device\/index/);
    await expect.poll(badge, SLOW).toBe(before);

    // more messages; then the full page through "view all"
    await send([
      { kind: 'sim.low', title: 'flowRate.lowTitle', body: `ICCID ${tag}1`, link: '/flowRate/flowRateSearch' },
      { kind: 'order.fulfilled', title: 'inbox.orderFulfilledTitle', body: `ORDER ${tag}2` },
      { kind: 'identity.reviewed', title: 'identity.approvedTitle', body: `Reviewed ${tag}3`, link: '/person/info' },
    ]);
    await openMessagesTab(page, 'en');
    await popover.getByTestId('inbox-view-all').click();
    await expectHash(page, /^#\/message\/messageIndex/);
    const rows = page.getByTestId('inbox-row');
    await rows.filter({ hasText: `ORDER ${tag}2` }).waitFor(SLOW);

    // filter: SIM messages with this test's tag
    await page.getByTestId('inbox-filter-keyword').fill(tag);
    await page.getByTestId('inbox-filter-group').click();
    await page.locator('.ant-select-dropdown .ant-select-item-option').filter({ hasText: /^SIM$/ }).click();
    await page.getByTestId('inbox-search').click();
    await expect.poll(() => rows.count(), SLOW).toBe(1);
    await rows.filter({ hasText: `ICCID ${tag}1` }).waitFor();
    await settle(page);
    await shot(page, 'inbox-page-filtered-en-light');

    // all of this test's messages; one arrives while the page is open, live
    await page.getByRole('button', { name: /Reset/ }).click();
    await page.getByTestId('inbox-filter-keyword').fill(tag);
    await page.getByTestId('inbox-search').click();
    await expect.poll(() => rows.count(), SLOW).toBe(4);
    await send([{ kind: 'identity.reviewed', title: 'identity.failedTitle', body: `Live ${tag}4` }]);
    await rows.filter({ hasText: `Live ${tag}4` }).waitFor(SLOW);
    expect(await rows.filter({ hasText: `Live ${tag}4` }).getAttribute('data-unread')).toBe('true');

    // mark all read
    await page.getByTestId('inbox-read-all').click();
    await expect
      .poll(async () => {
        const r = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-unread')));
        return r.every((u) => u === 'false');
      }, SLOW)
      .toBe(true);
    const [unread] = await query<{ n: string }>(
      s.databaseUrl,
      'SELECT count(*) AS n FROM messages WHERE body LIKE $1 AND read_at IS NULL',
      [`%${tag}%`],
    );
    expect(Number(unread.n)).toBe(0);

    // delete two
    for (const text of [`ORDER ${tag}2`, `Reviewed ${tag}3`]) {
      await rows.filter({ hasText: text }).getByRole('checkbox').check();
    }
    await page.getByTestId('inbox-delete-selected').click();
    await page.getByTestId('inbox-delete-ok').click();
    await expect.poll(() => rows.count(), SLOW).toBe(3);
    const [left] = await query<{ n: string }>(s.databaseUrl, 'SELECT count(*) AS n FROM messages WHERE body LIKE $1', [
      `%${tag}%`,
    ]);
    expect(Number(left.n)).toBe(3);

    // open one: its text, and the way to its page
    await rows
      .filter({ hasText: `ICCID ${tag}1` })
      .getByTestId('inbox-title')
      .click();
    await page.getByTestId('message-detail').getByText(`ICCID ${tag}1`).waitFor();
    await settle(page);
    await shot(page, 'inbox-detail-en-light');
    await page.getByTestId('message-open-link').click();
    await expectHash(page, /^#\/flowRate\/flowRateSearch/);
    expect(errors).toEqual([]);
    await context.close();
  });

  it.each([
    ['zh', false, 1366],
    ['zh', true, 1366],
    ['en', true, 1366],
    ['zh', false, 375],
  ] as const)('looks right (%s, dark %s, %i px)', async (lang, dark, width) => {
    const tag = uniqueName('v');
    await send([
      {
        kind: 'sim.low',
        title: 'flowRate.lowTitle',
        body: `ICCID 898600${tag} · SN0001 · 前台`,
        link: '/flowRate/flowRateSearch',
      },
      { kind: 'device.fault', title: 'inbox.deviceFaultCoverOpen', body: `SN0002 ${tag}`, link: '/device/index' },
    ]);
    const { context, page, errors } = await signIn(lang, { dark, width });
    const name = `${lang}-${dark ? 'dark' : 'light'}-${width}`;
    await openMessagesTab(page, lang);
    await page
      .getByTestId('message-item')
      .filter({ hasText: `SN0002 ${tag}` })
      .waitFor(SLOW);
    await settle(page);
    await shot(page, `inbox-popover-${name}`);
    await page.getByTestId('inbox-view-all').click();
    await expectHash(page, /^#\/message\/messageIndex/);
    await page
      .getByTestId('inbox-row')
      .filter({ hasText: `SN0002 ${tag}` })
      .waitFor(SLOW);
    await page
      .getByText(lang === 'zh' ? '打印机纸仓盖未关' : 'Printer cover open')
      .first()
      .waitFor();
    await settle(page);
    await shot(page, `inbox-page-${name}`);
    if (width < 400) {
      // nothing wider than the phone's screen
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
    }
    expect(errors).toEqual([]);
    await context.close();
  });
});
