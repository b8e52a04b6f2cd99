import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createDb } from '../apps/server/src/db/database.ts';
import { createFleet, type Fleet } from '../apps/device-sim/src/fleet.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs, type DeviceSpec } from '../apps/device-sim/src/specs.ts';
import { launch, newPage, query, server, shot, settle } from './browser.ts';
import { approveAccount, login, registerThroughUi, expectHash } from './flows.ts';

let browser: Browser;
let fleet: Fleet | undefined;
let specs: DeviceSpec[] = [];
let account: { username: string; password: string } | undefined;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await fleet?.stop().catch(() => {});
  await browser?.close();
});

const row = (page: Page, sn: string) => page.locator(`tr[data-device-sn="${sn}"]`).filter({ visible: true });
const rowStatus = (page: Page, sn: string) => row(page, sn).getAttribute('data-status');
const confirmModal = (page: Page) => page.locator('.ant-modal-confirm').filter({ visible: true });
const visibleModal = (page: Page, title: string | RegExp) =>
  page.locator('.ant-modal').filter({ visible: true, hasText: title });
const taskDrawer = (page: Page) => page.locator('.ant-drawer-section').filter({ visible: true });
// the confirmation names the moment the command is sent: "… 指令发出时间：2026-01-05 09:03:07"
const TIME = /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/;

/** Records every state the rows of the task drawer pass through, as the page shows them. */
async function recordTaskStates(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __taskStates: Record<string, string[]>; __taskTimer?: number };
    w.__taskStates = {};
    clearInterval(w.__taskTimer);
    w.__taskTimer = window.setInterval(() => {
      for (const tr of document.querySelectorAll<HTMLElement>('.ant-drawer tr[data-task-id]')) {
        const seen = (w.__taskStates[tr.dataset.taskId!] ??= []);
        if (seen[seen.length - 1] !== tr.dataset.state) seen.push(tr.dataset.state!);
      }
    }, 25);
  });
}
const taskStates = (page: Page) =>
  page.evaluate(() => (window as unknown as { __taskStates: Record<string, string[]> }).__taskStates);

/** Records the statuses a device row shows, to see it leave and come back without a reload. */
async function recordRowStatus(page: Page, sn: string): Promise<void> {
  await page.evaluate((sn) => {
    const w = window as unknown as { __rowStatus: string[]; __rowTimer?: number };
    w.__rowStatus = [];
    clearInterval(w.__rowTimer);
    w.__rowTimer = window.setInterval(() => {
      const status = [...document.querySelectorAll<HTMLElement>(`tr[data-device-sn="${sn}"]`)].find(
        (tr) => tr.offsetParent,
      )?.dataset.status;
      if (status && w.__rowStatus[w.__rowStatus.length - 1] !== status) w.__rowStatus.push(status);
    }, 25);
  }, sn);
}
const rowStatuses = (page: Page) => page.evaluate(() => (window as unknown as { __rowStatus: string[] }).__rowStatus);

/**
 * Where on the map canvas a marker of the legend's online colour is: the centre of the first patch of that
 * colour (a device dot, or a bubble of devices all online). Null when none is drawn.
 */
async function onlineMarker(page: Page): Promise<{ x: number; y: number } | null> {
  return page.evaluate(() => {
    const dot = document.querySelector<HTMLElement>('[data-legend="online"]');
    const rgb = dot ? getComputedStyle(dot).backgroundColor.match(/\d+/g)!.map(Number) : null;
    if (!rgb) return null;
    for (const canvas of document.querySelectorAll<HTMLCanvasElement>('[data-testid="device-map"] canvas')) {
      const ctx = canvas.getContext('2d');
      if (!ctx || !canvas.width) continue;
      const { width, height } = canvas;
      const px = ctx.getImageData(0, 0, width, height).data;
      const match = (i: number) =>
        Math.abs(px[i * 4] - rgb[0]) < 12 &&
        Math.abs(px[i * 4 + 1] - rgb[1]) < 12 &&
        Math.abs(px[i * 4 + 2] - rgb[2]) < 12 &&
        px[i * 4 + 3] > 200;
      let start = -1;
      for (let i = 0; i < width * height && start < 0; i++) if (match(i)) start = i;
      if (start < 0) continue;
      // the connected patch around the first match, so two dots far apart are not averaged into land
      const seen = new Set([start]);
      const queue = [start];
      let sx = 0;
      let sy = 0;
      while (queue.length && seen.size < 20_000) {
        const i = queue.pop()!;
        const x = i % width;
        const y = (i - x) / width;
        sx += x;
        sy += y;
        for (const j of [x > 0 ? i - 1 : -1, x < width - 1 ? i + 1 : -1, i - width, i + width]) {
          if (j >= 0 && j < width * height && !seen.has(j) && match(j)) {
            seen.add(j);
            queue.push(j);
          }
        }
      }
      const rect = canvas.getBoundingClientRect();
      const scale = width / rect.width;
      return { x: rect.left + sx / seen.size / scale, y: rect.top + sy / seen.size / scale };
    }
    return null;
  });
}

describe('my devices, with the fleet simulator', () => {
  it(
    'binds a device that then comes online live, reboots it, filters, groups, finds it on the map, shuts it down',
    { timeout: 300_000 },
    async () => {
      const s = server('plain');
      const { context, page, errors } = await newPage(browser, { lang: 'zh' });

      // A customer registers and staff approval is another flow's business (account.e2e.ts): approve directly.
      const reg = await registerThroughUi(page, s, 'individual');
      account = { username: reg.username, password: reg.password };
      await approveAccount(s, reg.username, '张三');

      // The factory registers five devices (as platform staff would); two of them are bound here, two in the UI,
      // and one to another account (the platform's own, for want of another customer).
      const prefix = `E2E${Date.now().toString(36).toUpperCase().slice(-6)}`;
      specs = makeSpecs(5, { seed: 7, prefix });
      const db = createDb(s.databaseUrl, 2);
      try {
        await registerInDb(db, specs);
        const [{ id: tenantId }] = await query<{ id: number }>(
          s.databaseUrl,
          'SELECT tenant_id AS id FROM users WHERE username = $1',
          [reg.username],
        );
        await bindInDb(db, Number(tenantId), [specs[2].sn, specs[3].sn], {
          name: (sn) => (sn === specs[2].sn ? '后厨打印机' : ''),
        });
        const [{ id: otherTenant }] = await query<{ id: number }>(
          s.databaseUrl,
          "SELECT tenant_id AS id FROM users WHERE username = 'admin'",
        );
        await bindInDb(db, Number(otherTenant), [specs[4].sn]);
      } finally {
        await db.destroy();
      }
      fleet = await createFleet({
        url: s.mqttUrl,
        specs: specs.slice(0, 4),
        start: false,
        rebootDelayMs: 1_500,
        stepMs: 200,
      });
      await fleet.powerOn(specs[2].sn);
      const [front, second, kitchen, spare, elsewhere] = specs;

      await page.reload();
      await page.goto(`${s.url}/#/device/index`);
      await expectHash(page, /^#\/device\/index/);
      await row(page, kitchen.sn).waitFor({ timeout: 15_000 });
      await page.locator('[data-live="open"]').filter({ visible: true }).waitFor({ timeout: 15_000 });

      // Bind: a wrong key is refused on its field, the right one adds the device to the list.
      await page.getByRole('button', { name: '绑定设备' }).first().click();
      const bind = visibleModal(page, '绑定设备');
      await bind.locator('#bind_sn').fill(front.sn);
      await bind.locator('#bind_bindKey').fill('WRONGKEY99');
      await bind.getByRole('button', { name: /绑\s*定/ }).click();
      await bind.getByText('序列号或绑定码不正确，请核对设备标签').waitFor();
      await shot(page, 'device-bind-error-zh');
      // the right key of a device another account holds: refused on the serial number, saying why
      await bind.locator('#bind_sn').fill(elsewhere.sn);
      await bind.locator('#bind_bindKey').fill(elsewhere.bindKey);
      await bind.getByRole('button', { name: /绑\s*定/ }).click();
      await bind.getByText('该设备已绑定到其他账号，请先由原账号解绑').waitFor();
      await shot(page, 'device-bind-elsewhere-zh');
      await bind.locator('#bind_sn').fill(front.sn);
      await bind.locator('#bind_bindKey').fill(front.bindKey);
      await bind.locator('#bind_name').fill('前台打印机');
      await bind.getByRole('button', { name: /绑\s*定/ }).click();
      await page.getByText('设备 前台打印机 已绑定').waitFor();
      await row(page, front.sn).waitFor();
      expect(await rowStatus(page, front.sn)).toBe('offline');

      // Power on: the row turns online without a reload (the marker survives only if the page was not reloaded).
      await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
      await fleet.powerOn(front.sn);
      await expect.poll(() => rowStatus(page, front.sn), { timeout: 15_000 }).toBe('online');
      expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
      await row(page, front.sn).getByText('刚刚').waitFor();

      // Reboot from the list: the confirmation names the time, the drawer follows the task to succeeded, and
      // the device leaves and comes back online.
      await recordRowStatus(page, front.sn);
      await row(page, front.sn)
        .getByRole('button', { name: /^重\s*启$/ })
        .click();
      const confirm = confirmModal(page);
      await confirm.getByText(/立即重启设备“前台打印机”？指令发出时间：.*/).waitFor();
      expect(await confirm.textContent()).toMatch(TIME);
      await shot(page, 'device-reboot-confirm-zh');
      await recordTaskStates(page);
      await confirm.getByRole('button', { name: /确\s*定/ }).click();
      await taskDrawer(page).getByText('重启任务').waitFor();
      const taskRow = taskDrawer(page).locator('tr[data-task-id]');
      await taskRow.waitFor();
      await expect.poll(() => taskRow.getAttribute('data-state'), { timeout: 30_000 }).toBe('succeeded');
      await taskDrawer(page).getByText('共 1 个任务，已结束 1 个').waitFor();
      const states = Object.values(await taskStates(page))[0];
      // every state shown is one of the way there, in order, ending in succeeded
      const order = ['queued', 'sent', 'delivered', 'running', 'succeeded'];
      expect(states.at(-1)).toBe('succeeded');
      expect(states.every((st, i) => i === 0 || order.indexOf(st) > order.indexOf(states[i - 1]))).toBe(true);
      expect(fleet.get(front.sn).executed.map((c) => c.type)).toEqual(['reboot']);
      await shot(page, 'device-task-drawer-zh');
      await taskDrawer(page).locator('.ant-drawer-close').click();
      await expect.poll(() => rowStatuses(page), { timeout: 30_000 }).toEqual(['online', 'offline', 'online']);

      // Reboot two devices at once: a batch. Its drawer is closed at once; the batch list opens it again and
      // both tasks are followed to succeeded there.
      await row(page, front.sn).locator('.ant-checkbox-input').check();
      await row(page, kitchen.sn).locator('.ant-checkbox-input').check();
      const selection = page.locator('[data-testid="selection-bar"]').filter({ visible: true });
      await selection.getByText('已选择 2 台').waitFor();
      await selection.getByRole('button', { name: /重\s*启/ }).click();
      await confirmModal(page)
        .getByText(/立即重启这 2 台设备？指令发出时间：.*/)
        .waitFor();
      await confirmModal(page)
        .getByRole('button', { name: /确\s*定/ })
        .click();
      await taskDrawer(page).getByText('共 2 个任务').waitFor();
      await taskDrawer(page).locator('.ant-drawer-close').click();
      await taskDrawer(page).waitFor({ state: 'hidden' });
      await page.getByRole('button', { name: '批量任务' }).filter({ visible: true }).click();
      const batches = page.locator('[data-testid="batch-list-drawer"]').filter({ visible: true });
      const [{ id: batchId }] = await query<{ id: number }>(
        s.databaseUrl,
        'SELECT batch_id AS id FROM device_tasks t JOIN devices d ON d.id = t.device_id WHERE d.sn = $1 AND t.batch_id IS NOT NULL ORDER BY t.created_at DESC LIMIT 1',
        [kitchen.sn],
      );
      const batchRow = page.locator(`tr[data-batch-id="${batchId}"]`).filter({ visible: true });
      await batchRow.getByText('重启').waitFor();
      await settle(page);
      await shot(page, 'device-batch-list-zh');
      await batchRow.getByRole('button', { name: /查\s*看/ }).click();
      await batches.waitFor({ state: 'hidden' });
      await taskDrawer(page).getByText('重启任务').waitFor();
      await expect.poll(() => taskDrawer(page).locator('tr[data-task-id]').count(), { timeout: 15_000 }).toBe(2);
      await expect
        .poll(() => taskDrawer(page).locator('tr[data-state="succeeded"]').count(), { timeout: 30_000 })
        .toBe(2);
      await taskDrawer(page).getByText('共 2 个任务，已结束 2 个').waitFor();
      expect(fleet.get(front.sn).executed.map((c) => c.type)).toEqual(['reboot', 'reboot']);
      expect(fleet.get(kitchen.sn).executed.map((c) => c.type)).toEqual(['reboot']);
      await shot(page, 'device-batch-drawer-zh');
      await taskDrawer(page).locator('.ant-drawer-close').click();
      // the batch list follows: the batch is done there too
      await page.getByRole('button', { name: '批量任务' }).filter({ visible: true }).click();
      await expect.poll(() => batchRow.getAttribute('data-done'), { timeout: 15_000 }).toBe('true');
      await batches.locator('.ant-drawer-close').click();
      await expect.poll(() => rowStatus(page, front.sn), { timeout: 30_000 }).toBe('online');
      await expect.poll(() => rowStatus(page, kitchen.sn), { timeout: 30_000 }).toBe('online');

      // A second device bound in the UI stays offline: the filters tell them apart.
      await fleet.powerOn(second.sn);
      await page.getByRole('button', { name: '绑定设备' }).first().click();
      await bind.locator('#bind_sn').fill(second.sn);
      await bind.locator('#bind_bindKey').fill(second.bindKey);
      await bind.getByRole('button', { name: /绑\s*定/ }).click();
      await row(page, second.sn).waitFor();
      // it was already connected: its state is read on binding, no event needed
      await expect.poll(() => rowStatus(page, second.sn), { timeout: 15_000 }).toBe('online');
      await fleet.get(second.sn).stop('shutdown');
      await expect.poll(() => rowStatus(page, second.sn), { timeout: 15_000 }).toBe('offline');

      await page.locator('.ant-select').filter({ hasText: '全部状态' }).filter({ visible: true }).click();
      await page.locator('.ant-select-item-option').filter({ hasText: '离线' }).click();
      await expectHash(page, /status=offline/);
      await expect
        .poll(() =>
          page
            .locator('tr[data-device-sn]')
            .filter({ visible: true })
            .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.deviceSn).sort()),
        )
        .toEqual([second.sn, spare.sn].sort());
      await page.getByPlaceholder('搜索序列号或名称').filter({ visible: true }).fill(spare.sn.slice(-5));
      await page.getByPlaceholder('搜索序列号或名称').filter({ visible: true }).press('Enter');
      await expectHash(page, /keyword=/);
      await expect.poll(() => page.locator('tr[data-device-sn]').filter({ visible: true }).count()).toBe(1);
      await row(page, spare.sn).waitFor();
      // a link with the filters opens the same list
      await page.reload();
      await row(page, spare.sn).waitFor({ timeout: 15_000 });
      expect(await page.locator('tr[data-device-sn]').filter({ visible: true }).count()).toBe(1);
      await page.getByRole('button', { name: '清除筛选' }).filter({ visible: true }).first().click();
      await expect.poll(() => page.locator('tr[data-device-sn]').filter({ visible: true }).count()).toBe(4);

      // Groups: a new group counts the device moved into it, and choosing it filters the list.
      const tree = page.locator('[data-testid="group-tree"]').filter({ visible: true });
      await tree.getByRole('button', { name: '新建分组' }).click();
      const groupDialog = visibleModal(page, '新建分组');
      await groupDialog.locator('#group_name').fill('华东门店');
      await groupDialog.getByRole('button', { name: /保\s*存/ }).click();
      await page.getByText('分组已创建').waitFor();
      const groupCount = tree.locator('[data-group-name="华东门店"] [data-count]');
      await expect.poll(() => groupCount.getAttribute('data-count')).toBe('0');
      await row(page, front.sn).getByRole('button', { name: /更多/ }).click();
      await page.locator('.ant-dropdown-menu-item').filter({ visible: true, hasText: '移动到分组' }).click();
      const moveDialog = visibleModal(page, '移动到分组');
      await moveDialog.locator('.ant-select').click();
      await page
        .locator('.ant-select-tree-node-content-wrapper')
        .filter({ visible: true, hasText: '华东门店' })
        .click();
      await moveDialog.getByRole('button', { name: /移\s*动/ }).click();
      await page.getByText('已移动 1 台设备').waitFor();
      await expect.poll(() => groupCount.getAttribute('data-count'), { timeout: 10_000 }).toBe('1');
      await expect.poll(() => tree.locator('[data-group-name="华东门店"]').textContent()).toContain('1/1');
      // (the group column shows from 1600 px or by choice: the filter below shows where the device went)
      await tree.locator('[data-group-name="华东门店"]').click();
      await expectHash(page, /groupId=\d+/);
      await expect.poll(() => page.locator('tr[data-device-sn]').filter({ visible: true }).count()).toBe(1);
      await row(page, front.sn).waitFor();
      await shot(page, 'device-list-group-zh');

      // The map: the group's device is a green dot; clicking it (through the bubbles, if any) opens its detail.
      await page.goto(`${s.url}/#/device/map`);
      await page.locator('[data-testid="device-map"] canvas').first().waitFor({ timeout: 20_000 });
      await page.locator('[data-testid="map-located"]').filter({ hasText: '已定位 3 台' }).waitFor({ timeout: 15_000 });
      await page.locator('.ant-select').filter({ hasText: '全部分组' }).filter({ visible: true }).click();
      await page
        .locator('.ant-select-tree-node-content-wrapper')
        .filter({ visible: true, hasText: '华东门店' })
        .click();
      await page.locator('[data-testid="map-located"]').filter({ hasText: '已定位 1 台' }).waitFor();
      await page.locator('[data-province]').first().waitFor();
      await settle(page);
      await shot(page, 'device-map-group-zh');
      const [{ id: frontId }] = await query<{ id: number }>(s.databaseUrl, 'SELECT id FROM devices WHERE sn = $1', [
        front.sn,
      ]);
      for (let attempt = 0; attempt < 6 && !page.url().includes('/device/detail'); attempt++) {
        const at = await onlineMarker(page);
        expect(at).not.toBeNull();
        await page.mouse.click(at!.x, at!.y);
        // a bubble zooms in (an animation); a dot opens the detail
        await page.waitForTimeout(1_000);
      }
      await expectHash(page, new RegExp(`^#/device/detail\\?id=${frontId}$`));
      const detail = page.locator('[data-testid="device-detail"]').filter({ visible: true });
      await detail.waitFor({ timeout: 15_000 });
      expect(await detail.getAttribute('data-status')).toBe('online');
      await detail.getByText('前台打印机').first().waitFor();
      await detail.getByText('SIM 卡').waitFor();
      await detail.getByText('中国移动').waitFor();
      // the reboots (alone and in the batch) are in the device's task list, and in its status history
      await expect.poll(() => detail.locator('tr[data-task-id][data-state="succeeded"]').count()).toBe(2);
      await detail.getByText('在线 · 设备上线').first().waitFor();
      await page.locator('[data-testid="location-map"] canvas').first().waitFor();
      // the telemetry history is drawn from the samples the device reported, over each range
      const telemetry = detail
        .locator('.ant-card')
        .filter({ has: page.locator('.ant-card-head-title', { hasText: '遥测趋势' }) });
      await telemetry.locator('canvas').first().waitFor({ timeout: 15_000 });
      await telemetry.getByText('7 天').click();
      await telemetry.locator('canvas').first().waitFor({ timeout: 15_000 });
      expect(await telemetry.getByText('该时间段内没有数据').count()).toBe(0);

      // Rename and remark from the detail: saved, shown, and stored.
      await detail.getByRole('button', { name: '重命名 / 备注' }).click();
      const editModal = page.locator('.ant-modal').filter({ visible: true, hasText: '备注' });
      await editModal.locator('#deviceEdit_remark').fill('收银台左侧');
      await editModal.getByRole('button', { name: /保\s*存/ }).click();
      await page.getByText('设备信息已保存').waitFor();
      await detail.getByText('收银台左侧').waitFor();
      const [edited] = await query<{ name: string; remark: string }>(
        s.databaseUrl,
        'SELECT name, remark FROM devices WHERE sn = $1',
        [front.sn],
      );
      expect(edited).toEqual({ name: '前台打印机', remark: '收银台左侧' });
      await settle(page);
      await shot(page, 'device-detail-zh');

      // Shutdown from the detail: the device goes offline and stays off.
      await recordTaskStates(page);
      await detail.getByRole('button', { name: /关\s*机/ }).click();
      await confirmModal(page)
        .getByText(/立即关闭设备“前台打印机”？指令发出时间：.*/)
        .waitFor();
      await confirmModal(page)
        .getByRole('button', { name: /确\s*定/ })
        .click();
      await taskDrawer(page).getByText('关机任务').waitFor();
      await expect
        .poll(() => taskDrawer(page).locator('tr[data-task-id]').getAttribute('data-state'), { timeout: 30_000 })
        .toBe('succeeded');
      await taskDrawer(page).locator('.ant-drawer-close').click();
      await expect.poll(() => detail.getAttribute('data-status'), { timeout: 15_000 }).toBe('offline');
      await detail.getByText('离线 · 关机').first().waitFor({ timeout: 10_000 });
      expect(fleet.get(front.sn).powered).toBe(false);

      // Unbind a device chosen in the list: it leaves the account.
      await page.goto(`${s.url}/#/device/index`);
      await row(page, spare.sn).waitFor({ timeout: 15_000 });
      await row(page, spare.sn).locator('.ant-checkbox-input').check();
      await page.locator('[data-testid="selection-bar"]').filter({ visible: true }).getByText('已选择 1 台').waitFor();
      await page
        .locator('[data-testid="selection-bar"]')
        .filter({ visible: true })
        .getByRole('button', { name: /解\s*绑/ })
        .click();
      await confirmModal(page)
        .getByRole('button', { name: /解\s*绑/ })
        .click();
      await page.getByText('设备已解绑').waitFor();
      await row(page, spare.sn).waitFor({ state: 'detached' });
      const [unbound] = await query<{ tenant_id: number | null; bind_key_hash: string }>(
        s.databaseUrl,
        'SELECT tenant_id, bind_key_hash FROM devices WHERE sn = $1',
        [spare.sn],
      );
      expect(unbound.tenant_id).toBeNull();
      // the new bind key, shown once for the next owner: the label's key no longer binds the device
      const keys = page.locator('[data-testid="new-bind-keys"]').filter({ visible: true });
      const newKey = await keys.locator(`[data-sn="${spare.sn}"] [data-bind-key]`).getAttribute('data-bind-key');
      expect(newKey).toMatch(/^[A-HJ-NP-Z2-9]{12}$/);
      expect(createHash('sha256').update(newKey!).digest('hex')).toBe(unbound.bind_key_hash);
      expect(newKey).not.toBe(spare.bindKey);
      await settle(page);
      await shot(page, 'device-unbind-key-zh');
      await page.getByRole('button', { name: '我已记下' }).click();
      await keys.waitFor({ state: 'hidden' });

      // back on for the screenshots
      await fleet.powerOn(front.sn);
      await fleet.powerOn(second.sn);
      expect(errors).toEqual([]);
      await context.close();
    },
  );
});

describe('screens', () => {
  it(
    'screenshots the list, bind dialog, task drawer, detail and map in zh and en, light and dark, desktop and 375 px',
    { timeout: 600_000 },
    async () => {
      expect(account).toBeDefined();
      const s = server('plain');
      const [{ id }] = await query<{ id: number }>(s.databaseUrl, 'SELECT id FROM devices WHERE sn = $1', [
        specs[0].sn,
      ]);
      for (const lang of ['zh', 'en'] as const) {
        for (const scheme of ['light', 'dark'] as const) {
          const { context, page, errors } = await newPage(browser, { lang });
          if (scheme === 'dark') {
            await context.addInitScript(() => {
              if (!localStorage.getItem('admin-plus-layout'))
                localStorage.setItem(
                  'admin-plus-layout',
                  JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }),
                );
            });
          }
          await login(page, s, account!.username, account!.password);
          await expectHash(page, /^#\/device\/index/);
          for (const [width, height, size] of [
            [1366, 860, 'desktop'],
            [375, 780, 'mobile'],
          ] as const) {
            const name = (what: string) => `device-${what}-${lang}-${scheme}-${size}`;
            await page.setViewportSize({ width, height });
            await page.goto(`${s.url}/#/device/index`);
            await page.locator('tr[data-device-sn]').filter({ visible: true }).first().waitFor({ timeout: 15_000 });
            await settle(page);
            await shot(page, name('list'));

            await page
              .getByRole('button', { name: lang === 'zh' ? '绑定设备' : 'Bind a device' })
              .first()
              .click();
            const bind = visibleModal(page, lang === 'zh' ? '绑定设备' : 'Bind a device');
            await bind.locator('#bind_sn').fill(specs[3].sn);
            await settle(page);
            await shot(page, name('bind'));
            await bind.getByRole('button', { name: lang === 'zh' ? /取\s*消/ : 'Cancel' }).click();
            await bind.waitFor({ state: 'hidden' });

            // every device at once: online ones run the reboot, offline ones wait for it
            await page.locator('thead .ant-checkbox-input').filter({ visible: true }).check();
            await page
              .locator('[data-testid="selection-bar"]')
              .filter({ visible: true })
              .getByRole('button', { name: lang === 'zh' ? /重\s*启/ : 'Reboot' })
              .click();
            await confirmModal(page)
              .getByRole('button', { name: lang === 'zh' ? /确\s*定/ : 'OK' })
              .click();
            await taskDrawer(page).locator('tr[data-task-id]').first().waitFor({ timeout: 60_000 });
            // the devices may still be back from the previous size's reboot: a reboot waits for them to be online
            await expect
              .poll(() => taskDrawer(page).locator('tr[data-state="succeeded"]').count(), { timeout: 90_000 })
              .toBeGreaterThan(0);
            await settle(page);
            await shot(page, name('task-drawer'));
            await taskDrawer(page).locator('.ant-drawer-close').click();

            await page.goto(`${s.url}/#/device/detail?id=${id}`);
            await page.locator('[data-testid="device-detail"]').filter({ visible: true }).waitFor({ timeout: 15_000 });
            await page
              .locator('[data-testid="location-map"] canvas')
              .filter({ visible: true })
              .first()
              .waitFor({ timeout: 15_000 });
            await settle(page);
            await shot(page, name('detail'));

            await page.goto(`${s.url}/#/device/map`);
            await page
              .locator('[data-testid="device-map"] canvas')
              .filter({ visible: true })
              .first()
              .waitFor({ timeout: 20_000 });
            await page.locator('[data-province]').filter({ visible: true }).first().waitFor({ timeout: 15_000 });
            await settle(page);
            await shot(page, name('map'));
          }
          expect(errors).toEqual([]);
          await context.close();
        }
      }
    },
  );
});
