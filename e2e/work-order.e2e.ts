import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { createDb } from '../apps/server/src/db/database.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs } from '../apps/device-sim/src/specs.ts';
import { launch, newPage, query, server, settle, shot } from './browser.ts';
import { approveAccount, FIXTURES, login, registerThroughUi, expectHash } from './flows.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

const visible = (l: Locator) => l.filter({ visible: true }).first();

async function dark(page: Page) {
  await page.context().addInitScript(() => {
    if (!localStorage.getItem('admin-plus-layout'))
      localStorage.setItem('admin-plus-layout', JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }));
  });
}

/** Types into the rich-text editor inside `box` (Tiptap: a contenteditable). */
async function write(page: Page, box: Locator, text: string) {
  const editable = box.locator('[contenteditable="true"]').first();
  await editable.click();
  await page.keyboard.type(text);
}

/** The page's width fits a phone: nothing but tables scrolls sideways. */
async function fitsPhone(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
}

describe('work orders: a customer asks, staff answer', () => {
  it(
    'a customer opens one with an image about a device; staff take it, ask and note; the customer answers live; staff resolve; the customer rates',
    { timeout: 400_000 },
    async () => {
      const s = server('plain');

      // A customer with a device of its own.
      const customer = await newPage(browser, { lang: 'zh' });
      const { page } = customer;
      const reg = await registerThroughUi(page, s, 'individual');
      await approveAccount(s, reg.username, '张三');
      const specs = makeSpecs(1, { seed: 14, prefix: `WO${Date.now().toString(36).toUpperCase().slice(-5)}` });
      const db = createDb(s.databaseUrl, 2);
      try {
        await registerInDb(db, specs);
        const [{ id }] = await query<{ id: number }>(
          s.databaseUrl,
          'SELECT tenant_id AS id FROM users WHERE username = $1',
          [reg.username],
        );
        await bindInDb(db, Number(id), [specs[0].sn], { name: () => '前台打印机' });
      } finally {
        await db.destroy();
      }
      const sn = specs[0].sn;

      await page.reload();
      // The customer's list (zh, light), then a new order with an image, about the device.
      await page.goto(`${s.url}/#/workOrder/workOrderIndex`);
      await visible(page.getByTestId('work-order-new')).waitFor({ timeout: 15_000 });
      await settle(page);
      await shot(page, 'work-order-list-empty-zh-light');
      await visible(page.getByTestId('work-order-new')).click();
      await expectHash(page, /^#\/workOrder\/edit/);
      const form = visible(page.getByTestId('work-order-form'));
      await form.getByText('打印问题').click();
      await form.getByText('高', { exact: true }).click();
      await form.getByTestId('work-order-title').fill('打印机一直卡纸');
      const description = form.getByTestId('work-order-description');
      await write(page, description, '从今天早上开始，每打印三张就卡一次纸。');
      await form.getByTestId('rich-editor-image-input').setInputFiles(path.join(FIXTURES, 'id-card.png'));
      await description.locator('img[data-object-key]').waitFor({ timeout: 15_000 });
      await form.getByTestId('work-order-devices').click();
      await visible(page.locator('.ant-select-item-option', { hasText: sn })).click();
      await page.keyboard.press('Escape');
      await settle(page);
      await shot(page, 'work-order-edit-zh-light');
      await form.getByTestId('work-order-submit').click();
      await expectHash(page, /^#\/workOrder\/detail\?id=\d+/);
      const orderId = Number(/id=(\d+)/.exec(new URL(page.url()).hash)![1]);
      await visible(page.getByTestId('work-order-title-text')).getByText('打印机一直卡纸').waitFor();
      const header = visible(page.getByTestId('work-order-header'));
      expect(await header.getByTestId('work-order-state').textContent()).toBe('已提交');
      await header.getByRole('link', { name: new RegExp(sn) }).waitFor();
      await visible(page.getByTestId('work-order-description-html')).locator('img').waitFor();
      expect(await visible(page.getByTestId('work-order-edit')).isVisible()).toBe(true);
      await settle(page);
      await shot(page, 'work-order-detail-customer-submitted-zh-light');

      // Staff (en, dark): the queue shows it; take it, ask a question and add an internal note.
      const staff = await newPage(browser, { lang: 'en' });
      await dark(staff.page);
      await login(staff.page, s, 'admin', s.adminPassword);
      await expectHash(staff.page, /^#\/(?!login)/);
      // its first-response target passed two hours ago: the queue marks it overdue
      await query(
        s.databaseUrl,
        "UPDATE work_orders SET response_due_at = now() - interval '2 hours 5 minutes' WHERE id = $1",
        [orderId],
      );
      await staff.page.goto(`${s.url}/#/workOrder/workOrderIndex?overdue=true`);
      const queueRow = visible(staff.page.locator('.ant-table-row', { hasText: '打印机一直卡纸' }));
      await queueRow.waitFor({ timeout: 15_000 });
      expect(await queueRow.textContent()).toContain(reg.username);
      expect(await queueRow.textContent()).toContain('2 h overdue');
      expect(await queueRow.getAttribute('data-overdue')).toBe('true');
      await settle(staff.page);
      await shot(staff.page, 'work-order-queue-en-dark');
      await queueRow.getByTestId(`work-order-take-${orderId}`).click();
      await expect.poll(async () => (await queueRow.textContent()) ?? '').toContain('In progress');
      await queueRow.getByRole('link', { name: '打印机一直卡纸' }).click();
      await expectHash(staff.page, new RegExp(`^#/workOrder/detail\\?id=${orderId}`));
      const staffReply = visible(staff.page.getByTestId('work-order-reply-form'));
      await staffReply.getByText('Ask customer').click();
      await write(staff.page, staffReply.getByTestId('work-order-reply-editor'), 'Which paper tray do you use?');
      await staffReply.getByTestId('work-order-reply-send').click();
      const staffTimeline = visible(staff.page.getByTestId('work-order-timeline'));
      await staffTimeline.getByText('Which paper tray do you use?').waitFor();
      await staffReply.getByText('Internal note').click();
      await write(staff.page, staffReply.getByTestId('work-order-reply-editor'), 'Probably the worn roller of tray 2.');
      await staffReply.getByTestId('work-order-reply-send').click();
      await staffTimeline.getByText('Probably the worn roller of tray 2.').waitFor();
      await staffTimeline.getByTestId('work-order-note-tag').waitFor();
      expect(
        await visible(staff.page.getByTestId('work-order-header')).getByTestId('work-order-state').textContent(),
      ).toBe('Waiting for customer');
      await settle(staff.page);
      await shot(staff.page, 'work-order-detail-staff-en-dark');

      // The customer, without reloading: the question arrives on the open page and in the bell's mail.
      const timeline = visible(page.getByTestId('work-order-timeline'));
      await timeline.getByText('Which paper tray do you use?').waitFor({ timeout: 15_000 });
      await timeline.getByTestId('work-order-question-tag').waitFor();
      expect(await header.getByTestId('work-order-state').textContent()).toBe('待客户回复');
      await visible(page.getByTestId('notice-bell')).click();
      await visible(page.getByRole('tab', { name: /邮件/ })).click();
      await visible(page.getByTestId('message-item').filter({ hasText: '客服需要您补充工单信息' })).waitFor({
        timeout: 15_000,
      });
      await settle(page);
      await shot(page, 'work-order-bell-zh-light');
      await visible(page.getByTestId('notice-bell')).click();
      // the internal note never reaches the customer, nor does the edit button once staff took it
      expect(await page.getByText('Probably the worn roller').count()).toBe(0);
      expect(await page.getByTestId('work-order-note').count()).toBe(0);
      expect(await page.getByTestId('work-order-edit').filter({ visible: true }).count()).toBe(0);
      const reply = visible(page.getByTestId('work-order-reply-form'));
      await write(page, reply.getByTestId('work-order-reply-editor'), '用的是第二层纸盒。');
      // with the printer's log attached (the attachment bucket: a text file, checked by its bytes)
      await reply.locator('.ant-upload input[type=file]').setInputFiles({
        name: 'printer.log',
        mimeType: 'text/plain',
        buffer: Buffer.from('10:01 paper jam tray 2\n10:07 paper jam tray 2\n'),
      });
      await reply.locator('.ant-upload-list-item', { hasText: 'printer.log' }).waitFor();
      await expect.poll(() => reply.locator('.ant-upload-list-item-uploading').count(), { timeout: 15_000 }).toBe(0);
      await reply.getByTestId('work-order-reply-send').click();
      await timeline.getByText('用的是第二层纸盒。').waitFor();
      const log = timeline.getByTestId('work-order-attachments').getByRole('link', { name: /printer\.log/ });
      await log.waitFor();
      const logText = await page.evaluate(
        async (href) => (await fetch(href)).text(),
        (await log.getAttribute('href'))!,
      );
      expect(logText).toContain('paper jam tray 2');
      await settle(page);
      await shot(page, 'work-order-detail-customer-zh-light');

      // Staff see the answer live and resolve it.
      await staffTimeline.getByText('用的是第二层纸盒。').waitFor({ timeout: 15_000 });
      await staffReply.getByText('Resolve', { exact: true }).click();
      await write(staff.page, staffReply.getByTestId('work-order-reply-editor'), 'We replaced the roller remotely.');
      await staffReply.getByTestId('work-order-reply-send').click();
      await expect
        .poll(async () =>
          visible(staff.page.getByTestId('work-order-header')).getByTestId('work-order-state').textContent(),
        )
        .toBe('Resolved');

      // The customer sees it resolved, closes it and rates it.
      await expect
        .poll(async () => header.getByTestId('work-order-state').textContent(), { timeout: 15_000 })
        .toBe('已解决');
      await visible(page.getByTestId('work-order-close')).click();
      await visible(page.locator('.ant-popconfirm').getByRole('button', { name: /确\s*定|OK/ })).click();
      await expect.poll(async () => header.getByTestId('work-order-state').textContent()).toBe('已关闭');
      await visible(page.getByTestId('work-order-rate')).click();
      const rate = visible(page.getByTestId('work-order-rate-form'));
      await rate.locator('.ant-rate-star').nth(4).click();
      await rate.getByTestId('work-order-rate-comment').fill('很快就解决了');
      await settle(page);
      await shot(page, 'work-order-rate-zh-light');
      await visible(page.locator('.ant-modal').getByRole('button', { name: '提交评价' })).click();
      await header.getByText('很快就解决了').waitFor();
      const [row] = await query<{ rating: number; state: string }>(
        s.databaseUrl,
        'SELECT rating, state FROM work_orders WHERE id = $1',
        [orderId],
      );
      expect(row).toMatchObject({ rating: 5, state: 'closed' });
      await settle(page);
      await shot(page, 'work-order-detail-customer-rated-zh-light');

      // The list marks nothing unread now, and staff's queue shows it closed.
      await page.goto(`${s.url}/#/workOrder/workOrderIndex`);
      const listRow = visible(page.locator('.ant-table-row', { hasText: '打印机一直卡纸' }));
      await listRow.waitFor({ timeout: 15_000 });
      expect(await listRow.textContent()).toContain('已关闭');
      await settle(page);
      await shot(page, 'work-order-list-zh-light');
      expect(customer.errors).toEqual([]);
      expect(staff.errors).toEqual([]);
      await staff.context.close();
      await customer.context.close();

      // The customer's screens in English, dark, and on a phone.
      const en = await newPage(browser, { lang: 'en' });
      await dark(en.page);
      await login(en.page, s, reg.username, reg.password);
      await expectHash(en.page, /^#\/(?!login)/);
      await en.page.goto(`${s.url}/#/workOrder/workOrderIndex`);
      await visible(en.page.locator('.ant-table-row', { hasText: 'Closed' })).waitFor({ timeout: 15_000 });
      await settle(en.page);
      await shot(en.page, 'work-order-list-en-dark');
      await en.page.goto(`${s.url}/#/workOrder/detail?id=${orderId}`);
      await visible(en.page.getByTestId('work-order-timeline'))
        .getByText('We replaced the roller remotely.')
        .waitFor({ timeout: 15_000 });
      await settle(en.page);
      await shot(en.page, 'work-order-detail-customer-en-dark');
      await en.page.goto(`${s.url}/#/workOrder/edit`);
      await visible(en.page.getByTestId('work-order-form')).waitFor({ timeout: 15_000 });
      await settle(en.page);
      await shot(en.page, 'work-order-edit-en-dark');
      expect(en.errors).toEqual([]);
      await en.context.close();

      const phone = await newPage(browser, { lang: 'en', width: 375, height: 800 });
      await login(phone.page, s, reg.username, reg.password);
      await expectHash(phone.page, /^#\/(?!login)/);
      await phone.page.goto(`${s.url}/#/workOrder/detail?id=${orderId}`);
      await visible(phone.page.getByTestId('work-order-timeline')).waitFor({ timeout: 15_000 });
      await settle(phone.page);
      await shot(phone.page, 'work-order-detail-customer-en-light-375');
      await fitsPhone(phone.page);
      await phone.page.goto(`${s.url}/#/workOrder/workOrderIndex`);
      await visible(phone.page.locator('.ant-table-row')).waitFor({ timeout: 15_000 });
      await settle(phone.page);
      await shot(phone.page, 'work-order-list-en-light-375');
      await fitsPhone(phone.page);
      await phone.page.goto(`${s.url}/#/workOrder/edit`);
      await visible(phone.page.getByTestId('work-order-form')).waitFor({ timeout: 15_000 });
      await settle(phone.page);
      await shot(phone.page, 'work-order-edit-en-light-375');
      await fitsPhone(phone.page);
      await phone.context.close();

      // Staff in Chinese, light: the queue, the detail with the note, and the settings.
      const zh = await newPage(browser, { lang: 'zh' });
      await login(zh.page, s, 'admin', s.adminPassword);
      await expectHash(zh.page, /^#\/(?!login)/);
      await zh.page.goto(`${s.url}/#/workOrder/workOrderIndex`);
      await visible(zh.page.locator('.ant-table-row', { hasText: '打印机一直卡纸' })).waitFor({ timeout: 15_000 });
      await settle(zh.page);
      await shot(zh.page, 'work-order-queue-zh-light');
      await visible(zh.page.getByTestId('work-order-settings')).click();
      await visible(zh.page.getByTestId('work-order-target-urgent-response')).waitFor();
      await settle(zh.page);
      await shot(zh.page, 'work-order-settings-zh-light');
      await zh.page.keyboard.press('Escape');
      await zh.page.goto(`${s.url}/#/workOrder/detail?id=${orderId}`);
      await visible(zh.page.getByTestId('work-order-note-tag')).waitFor({ timeout: 15_000 });
      await settle(zh.page);
      await shot(zh.page, 'work-order-detail-staff-zh-light');
      expect(zh.errors).toEqual([]);
      await zh.context.close();
    },
  );
});
