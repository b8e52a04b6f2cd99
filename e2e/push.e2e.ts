import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createFleet, type Fleet } from '../apps/device-sim/src/fleet.ts';
import { makeSpecs } from '../apps/device-sim/src/specs.ts';
import { launch, newPage, server, settle, shot } from './browser.ts';
import { bindDevices, groupWithSubgroup, tenantOf } from './fleet-setup.ts';
import { approveAccount, expectHash, login, registerThroughUi } from './flows.ts';

let browser: Browser;
let fleet: Fleet | undefined;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await fleet?.stop().catch(() => {});
  await browser?.close();
});

const drawer = (page: Page) => page.locator('.ant-drawer-section').filter({ visible: true });
const count = (page: Page, state: string) => drawer(page).getByTestId(`count-${state}`).textContent();

/**
 * Push tasks (issue 16) in the browser with simulated terminals: a screen notice to a group of four devices, two of
 * them offline; the two online ones display it and the page shows it live; the two come online and receive it on
 * reconnect — the page follows without a reload. Then push query, and both pages in en, dark, at 375 px.
 */
describe('push tasks and push query', () => {
  it('pushes a notice to a group; offline devices receive it on reconnect, live', { timeout: 300_000 }, async () => {
    const s = server('plain');
    const { context, page, errors } = await newPage(browser, { lang: 'zh' });
    const reg = await registerThroughUi(page, s, 'individual');
    const tenantId = await tenantOf(s, reg.username);
    await approveAccount(s, reg.username, '张三');

    // four devices in "大厅" (two in it, two in its sub-group "自助区")
    const prefix = `PU${Date.now().toString(36).toUpperCase().slice(-6)}`;
    const specs = makeSpecs(4, { seed: 16, prefix });
    await bindDevices(s, tenantId, specs);
    await groupWithSubgroup(
      s,
      tenantId,
      { group: '大厅', subgroup: '自助区' },
      { inGroup: specs.slice(0, 2).map((x) => x.sn), inSubgroup: specs.slice(2).map((x) => x.sn) },
    );
    fleet = await createFleet({ url: s.mqttUrl, specs, start: false, randomFaults: false });
    // two online; the two of "自助区" stay offline
    await fleet.powerOn(specs[0].sn);
    await fleet.powerOn(specs[1].sn);

    await page.reload();
    await page.goto(`${s.url}/#/push/pushTask`);
    await expectHash(page, /^#\/push\/pushTask/);
    const form = page.getByTestId('push-form');
    await form.waitFor();

    // compose: a screen notice for 20 s, to the group "大厅" (its sub-group comes with it)
    await form.getByTestId('push-kind').getByText('屏幕通知').click();
    await form.getByTestId('push-title').fill('今晚 20:00 暂停服务');
    await form.getByTestId('push-body').fill('系统维护约 30 分钟，请提前打印。');
    await form.locator('#noticeSeconds').fill('20');
    await form.locator('#groupIds').click();
    await page.locator('.ant-select-tree-node-content-wrapper').filter({ hasText: '大厅' }).click();
    await page.keyboard.press('Escape');
    await expect
      .poll(() => page.getByTestId('push-count').textContent(), { timeout: 15_000 })
      .toContain('4 台设备（当前 2 台在线');
    await expect(page.getByTestId('push-preview').textContent()).resolves.toContain('今晚 20:00 暂停服务');
    await settle(page);
    await shot(page, 'push-task-compose-zh');
    await form.getByTestId('push-submit').click();

    // the deliveries open on the new push: the two online devices display it, the others wait — live
    await drawer(page).getByTestId('delivery-table').waitFor();
    await expect.poll(() => count(page, 'displayed'), { timeout: 30_000 }).toBe('已展示 2');
    await expect.poll(() => count(page, 'queued'), { timeout: 10_000 }).toBe('等待上线 2');
    for (const x of specs.slice(0, 2))
      expect(fleet.get(x.sn).pushes.shown.map((p) => p.title)).toEqual(['今晚 20:00 暂停服务']);
    expect(fleet.get(specs[0].sn).pushes.shown[0].noticeSeconds).toBe(20);
    await settle(page);
    await shot(page, 'push-deliveries-two-offline-zh');

    // the two come online: they receive it on reconnect, and the page follows without a reload
    let reloaded = false;
    page.on('framenavigated', (f) => {
      if (f === page.mainFrame()) reloaded = true;
    });
    await fleet.powerOn(specs[2].sn);
    await fleet.powerOn(specs[3].sn);
    await expect.poll(() => count(page, 'displayed'), { timeout: 30_000 }).toBe('已展示 4');
    await expect(count(page, 'queued')).resolves.toBe('等待上线 0');
    for (const x of specs.slice(2))
      expect(fleet.get(x.sn).pushes.shown.map((p) => p.title)).toEqual(['今晚 20:00 暂停服务']);
    // a user taps it on one terminal: clicked, live
    await fleet.get(specs[2].sn).pushes.click();
    await expect.poll(() => count(page, 'clicked'), { timeout: 15_000 }).toBe('已点击 1');
    expect(reloaded).toBe(false);
    await settle(page);
    await shot(page, 'push-deliveries-all-zh');
    await page.keyboard.press('Escape');

    // the list shows it done, 4 of 4 shown
    await expect
      .poll(
        () =>
          page
            .getByTestId('push-table')
            .filter({ visible: true })
            .locator('tbody tr.ant-table-row')
            .first()
            .textContent(),
        {
          timeout: 20_000,
        },
      )
      .toMatch(/已完成.*4\/4/);
    await settle(page);
    await shot(page, 'push-task-list-zh');

    // push query: found by keyword, the deliveries filtered by state
    await page.goto(`${s.url}/#/push/pushQuery`);
    await page.getByTestId('push-keyword').locator('input').fill('暂停');
    await page
      .getByTestId('push-table')
      .filter({ visible: true })
      .getByRole('button', { name: '今晚 20:00 暂停服务' })
      .waitFor();
    await settle(page);
    await shot(page, 'push-query-zh');
    await page
      .getByTestId('push-table')
      .filter({ visible: true })
      .getByRole('button', { name: '送达详情' })
      .first()
      .click();
    await drawer(page).getByTestId('count-clicked').click();
    await expect
      .poll(() => drawer(page).getByTestId('delivery-table').locator('tbody tr.ant-table-row').count(), {
        timeout: 10_000,
      })
      .toBe(1);
    await drawer(page).getByTestId('delivery-table').getByText(specs[2].sn, { exact: false }).waitFor();
    await settle(page);
    await shot(page, 'push-query-deliveries-zh');
    expect(errors).toEqual([]);
    await context.close();

    // English, dark theme, and a phone's width
    const en = await newPage(browser, { lang: 'en' });
    await en.context.addInitScript(() => {
      if (!localStorage.getItem('admin-plus-layout'))
        localStorage.setItem('admin-plus-layout', JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }));
    });
    await login(en.page, s, reg.username, reg.password);
    await expectHash(en.page, /^#\/(?!login)/);
    await en.page.goto(`${s.url}/#/push/pushTask`);
    await en.page.getByTestId('push-form').waitFor();
    await en.page.getByTestId('push-kind').getByText('Screen notice').click();
    await en.page.getByTestId('push-title').fill('Closed tonight at 8 pm');
    await en.page.getByTestId('push-mode').getByText('Whole fleet').click();
    await expect
      .poll(() => en.page.getByTestId('push-count').textContent(), { timeout: 15_000 })
      .toContain('4 devices (4 online');
    await settle(en.page);
    await shot(en.page, 'push-task-en-dark');
    await en.page.goto(`${s.url}/#/push/pushQuery`);
    await en.page.getByTestId('push-table').filter({ visible: true }).getByText('Done').waitFor();
    await settle(en.page);
    await shot(en.page, 'push-query-en-dark');
    await en.page
      .getByTestId('push-table')
      .filter({ visible: true })
      .getByRole('button', { name: 'Deliveries' })
      .first()
      .click();
    await expect.poll(() => count(en.page, 'displayed'), { timeout: 10_000 }).toBe('Displayed 3');
    await settle(en.page);
    await shot(en.page, 'push-query-deliveries-en-dark');
    await en.page.keyboard.press('Escape');
    await en.page.setViewportSize({ width: 375, height: 800 });
    await settle(en.page);
    await shot(en.page, 'push-query-375-en');
    await en.page.goto(`${s.url}/#/push/pushTask`);
    await en.page.getByTestId('push-form').waitFor();
    await settle(en.page);
    await shot(en.page, 'push-task-375-en');
    const overflow = await en.page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
    expect(overflow).toBe(false);
    expect(en.errors).toEqual([]);
    await en.context.close();
  });
});
