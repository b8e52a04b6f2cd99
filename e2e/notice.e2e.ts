import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launch, newPage, query, server, settle, shot, uniqueName } from './browser.ts';
import { FIXTURES, expectHash, login, registerThroughUi } from './flows.ts';

type Server = ReturnType<typeof server>;

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

const LIST = '/notice/noticeIndex';

async function signInAsAdmin(page: Page, s: Server) {
  await login(page, s, 'admin', s.adminPassword);
  await expectHash(page, /^#\/device\/index/);
}

/** A customer registered through the screens and approved (the approval is account.e2e.ts's business). */
async function approvedCustomer(page: Page, s: Server, type: 'individual' | 'enterprise') {
  const account = await registerThroughUi(page, s, type);
  await query(
    s.databaseUrl,
    `UPDATE tenants SET auth_status = 1, attest_name = $2 WHERE id = (SELECT tenant_id FROM users WHERE username = $1)`,
    [account.username, type === 'enterprise' ? '公告测试有限公司' : '张三'],
  );
  // the browser tests share their servers: announcements other files published are read already, so the counts
  // this file checks are its own announcements'
  await query(
    s.databaseUrl,
    `INSERT INTO notice_reads (user_id, notice_id) SELECT u.id, n.id FROM users u, notices n WHERE u.username = $1
     ON CONFLICT DO NOTHING`,
    [account.username],
  );
  await page.reload();
  return account;
}

async function openList(page: Page, s: Server) {
  await page.goto(`${s.url}/#${LIST}`);
  await expectHash(page, /^#\/notice\/noticeIndex/);
  await page.locator(`[data-page-path="${LIST}"] [data-testid="notice-list"]`).first().waitFor();
}

const bell = (page: Page) => page.getByTestId('notice-bell');
const darkContext = (context: BrowserContext) =>
  context.addInitScript(() => {
    if (!localStorage.getItem('admin-plus-layout'))
      localStorage.setItem('admin-plus-layout', JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }));
  });

/** Writes an announcement in the drawer: bold text, an image, the audience; saves and publishes it. */
async function writeAndPublish(page: Page, title: string, audience: RegExp, shotName?: string, cover = false) {
  await page.getByTestId('notice-create').click();
  const drawer = page.locator('.ant-drawer-section').filter({ visible: true });
  await drawer.getByTestId('notice-title').fill(title);
  if (cover) {
    await drawer.getByTestId('notice-cover-input').setInputFiles(path.join(FIXTURES, 'id-card.png'));
    await drawer.locator('img[src*="/apiAdmin/objects/"]').first().waitFor({ timeout: 20_000 });
  }
  const editor = drawer.locator('.cpc-rich-editor');
  await editor.click();
  await editor.pressSequentially('Printers restart at ');
  await page.keyboard.press('Control+b');
  await editor.pressSequentially('02:00 Sunday');
  await page.keyboard.press('Control+b');
  await editor.pressSequentially('. ');
  await drawer.getByTestId('rich-editor-image-input').setInputFiles(path.join(FIXTURES, 'id-card.png'));
  await editor.locator('img[data-object-key]').waitFor({ timeout: 20_000 });
  await drawer.getByTestId('notice-audience').getByText(audience).click();
  if (shotName) {
    await settle(page);
    await shot(page, shotName);
  }
  await drawer.getByTestId('notice-save-publish').click();
  await drawer.waitFor({ state: 'hidden', timeout: 15_000 });
}

describe('system announcements', () => {
  it(
    'staff publish to enterprise customers only: the enterprise sees it live with its count, the individual does not',
    { timeout: 300_000 },
    async () => {
      const s = server('plain');
      const ent = await newPage(browser, { lang: 'zh' });
      await approvedCustomer(ent.page, s, 'enterprise');
      const ind = await newPage(browser, { lang: 'en' });
      await approvedCustomer(ind.page, s, 'individual');
      await openList(ent.page, s);
      await openList(ind.page, s);

      const staff = await newPage(browser, { lang: 'zh' });
      await signInAsAdmin(staff.page, s);
      await staff.page.goto(`${s.url}/#${LIST}`);
      await staff.page.getByTestId('notice-manage-table').waitFor();
      const title = uniqueName('企业公告');
      await writeAndPublish(staff.page, title, /^企业客户$/, undefined, true);
      const row = staff.page.getByTestId('notice-manage-table').locator('tr', { hasText: title });
      await expect.poll(() => row.getByTestId('notice-state').textContent()).toBe('已发布');

      // stored sanitised, with the image as an object key and the bold kept
      const [stored] = await query<{ body_html: string; audience: string; image: string }>(
        s.databaseUrl,
        'SELECT body_html, audience, image FROM notices WHERE title = $1',
        [title],
      );
      expect(stored.audience).toBe('enterprise');
      expect(stored.image).toMatch(/^\d{8}\//);
      expect(stored.body_html).toContain('<strong>02:00 Sunday</strong>');
      expect(stored.body_html).toMatch(/<img data-object-key="[^"]+"/);

      // the enterprise customer's open page hears it: the list and the bell, without a reload
      const entRow = ent.page.getByTestId('notice-row').filter({ hasText: title });
      await entRow.waitFor({ timeout: 20_000 });
      expect(await entRow.getAttribute('data-unread')).toBe('true');
      await expect.poll(() => bell(ent.page).getAttribute('aria-label')).toMatch(/1 条未读/);
      await bell(ent.page).click();
      const popover = ent.page.getByTestId('notice-popover');
      await popover.getByTestId('notice-item').filter({ hasText: title }).waitFor();
      expect(await popover.getByTestId('notice-tab-count').innerText()).toContain('1');
      await settle(ent.page);
      await shot(ent.page, 'notice-popover-zh-light-enterprise');
      await popover.getByTestId('notice-item').filter({ hasText: title }).click();
      await expectHash(ent.page, /^#\/notice\/detail\?id=\d+/);
      const body = ent.page.getByTestId('notice-body-html').filter({ visible: true });
      await body.locator('strong', { hasText: '02:00 Sunday' }).waitFor();
      await body.locator('img[src*="/apiAdmin/objects/"]').waitFor();
      // the cover above the text
      await ent.page
        .getByTestId('notice-detail')
        .filter({ visible: true })
        .locator(':scope > img[src*="/apiAdmin/objects/"]')
        .waitFor();
      expect(await body.locator('img').evaluate((img: HTMLImageElement) => img.naturalWidth > 0)).toBe(true);
      // read: the count drops
      await expect.poll(() => bell(ent.page).getAttribute('aria-label')).not.toMatch(/未读/);
      await openList(ent.page, s);
      expect(await entRow.getAttribute('data-unread')).toBe('false');

      // the individual customer never sees it
      await ind.page.reload();
      await openList(ind.page, s);
      await ind.page.waitForLoadState('networkidle');
      expect(await ind.page.getByTestId('notice-row').filter({ hasText: title }).count()).toBe(0);
      expect(await bell(ind.page).getAttribute('aria-label')).not.toMatch(/unread/);
      const [{ id }] = await query<{ id: string }>(s.databaseUrl, 'SELECT id FROM notices WHERE title = $1', [title]);
      await ind.page.goto(`${s.url}/#/notice/detail?id=${id}`);
      await ind.page.getByTestId('notice-gone').filter({ visible: true }).waitFor();

      for (const p of [ent, ind, staff]) {
        expect(p.errors).toEqual([]);
        await p.context.close();
      }
    },
  );

  it(
    'screenshots the list, the detail, the staff table, the editor and the popover in zh and en, light and dark',
    { timeout: 400_000 },
    async () => {
      const s = server('plain');
      for (const lang of ['zh', 'en'] as const) {
        for (const scheme of ['light', 'dark'] as const) {
          const { context, page, errors } = await newPage(browser, { lang });
          if (scheme === 'dark') await darkContext(context);
          await signInAsAdmin(page, s);
          await page.goto(`${s.url}/#${LIST}`);
          await page.getByTestId('notice-manage-table').waitFor();
          await page.waitForLoadState('networkidle');
          await settle(page);
          await shot(page, `notice-staff-table-${lang}-${scheme}`);
          await writeAndPublish(
            page,
            uniqueName(lang === 'zh' ? '置顶维护公告' : 'Maintenance'),
            lang === 'zh' ? /^所有客户$/ : /^All customers$/,
            `notice-editor-${lang}-${scheme}`,
          );
          await page.getByRole('tab', { name: lang === 'zh' ? '公告' : 'Announcements', exact: true }).click();
          await page.getByTestId('notice-row').first().waitFor();
          await settle(page);
          await shot(page, `notice-list-${lang}-${scheme}`);
          await bell(page).click();
          await page.getByTestId('notice-popover').waitFor();
          await settle(page);
          await shot(page, `notice-popover-${lang}-${scheme}`);
          await page.getByTestId('notice-item').first().click();
          await page.getByTestId('notice-body-html').filter({ visible: true }).waitFor();
          await settle(page);
          await shot(page, `notice-detail-${lang}-${scheme}`);
          // phone width
          await page.setViewportSize({ width: 375, height: 780 });
          await settle(page);
          await shot(page, `notice-detail-${lang}-${scheme}-mobile`);
          await page.goto(`${s.url}/#${LIST}`);
          // the page was kept alive on its reading tab
          await page.getByRole('tab', { name: lang === 'zh' ? '公告管理' : 'Manage', exact: true }).click();
          await page.getByTestId('notice-manage-table').waitFor();
          await page.waitForLoadState('networkidle');
          await settle(page);
          await shot(page, `notice-staff-table-${lang}-${scheme}-mobile`);
          expect(errors).toEqual([]);
          await context.close();
        }
      }
    },
  );
});
