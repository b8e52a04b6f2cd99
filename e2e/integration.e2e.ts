import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createDb } from '../apps/server/src/db/database.ts';
import { createFleet, type Fleet } from '../apps/device-sim/src/fleet.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs, type DeviceSpec } from '../apps/device-sim/src/specs.ts';
import { launch, newPage, query, server, shot, uniqueName, settle } from './browser.ts';
import { approveAccount, login, registerThroughUi, expectHash } from './flows.ts';

let browser: Browser;
let fleet: Fleet | undefined;
let hooks: HttpServer | undefined;
let dir = '';
let account: { username: string; password: string } | undefined;

/** What the customer's own callback endpoint received. */
const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];

beforeAll(async () => {
  browser = await launch();
  dir = await mkdtemp(path.join(tmpdir(), 'cpc-integration-e2e-'));
  hooks = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => hooks!.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await fleet?.stop().catch(() => {});
  await new Promise((resolve) => (hooks ? hooks.close(resolve) : resolve(undefined)));
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const visibleModal = (page: Page, title: string | RegExp) =>
  page.locator('.ant-modal').filter({ visible: true, hasText: title });
const confirmModal = (page: Page) => page.locator('.ant-modal-confirm').filter({ visible: true });
/** The open drawer (one at a time on this page); `title` tells which. */
const drawer = (page: Page, title: string) =>
  page
    .locator('.ant-drawer-section')
    .filter({ visible: true, has: page.locator('.ant-drawer-title', { hasText: title }) });
const keyRow = (page: Page, name: string) => page.locator('tr[data-app-id]').filter({ visible: true, hasText: name });
const tab = (page: Page, name: string) => page.getByRole('tab', { name }).filter({ visible: true });
const pickOption = async (page: Page, inputId: string, text: string | RegExp) => {
  await page
    .locator('.ant-select')
    .filter({ visible: true, has: page.locator(`#${inputId}`) })
    .click();
  await page.locator('.ant-select-item-option').filter({ visible: true, hasText: text }).first().click();
};
const moreAction = async (page: Page, name: string, action: string) => {
  await keyRow(page, name).getByTestId('key-more').click();
  await page.locator('.ant-dropdown-menu-item').filter({ visible: true, hasText: action }).click();
};

/** Runs the page's Node example of a call as an integrator would, with the secret in the environment. */
async function runNodeExample(page: Page, callLabel: string, callId: string, secret: string): Promise<string> {
  await page.getByTestId('example-language').filter({ visible: true }).getByText('Node.js').click();
  const code = page.getByTestId(`example-${callId}`).filter({ visible: true });
  if (!(await code.count()))
    await page.locator('.ant-collapse-header').filter({ visible: true, hasText: callLabel }).click();
  await code.waitFor();
  const file = path.join(dir, `${callId}-${Date.now()}.mjs`);
  await writeFile(file, (await code.textContent()) ?? '');
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [file],
      { env: { ...process.env, CPC_APP_SECRET: secret }, timeout: 20_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
    ),
  );
}

async function openIntegration(page: Page, url: string) {
  await page.goto(`${url}/#/integration/index`);
  await expectHash(page, /^#\/integration\/index/);
  await tab(page, '应用密钥').or(tab(page, 'App keys')).first().waitFor();
}

describe('system integration', () => {
  it(
    'creates a key, prints through it on a simulated printer, follows the job, the log and the webhook, rotates, disables and deletes it',
    { timeout: 300_000 },
    async () => {
      const s = server('plain');
      const { context, page, errors } = await newPage(browser, { lang: 'zh' });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.url });

      // A customer registers and is approved directly (account.e2e.ts covers the review); two printers are bound.
      const reg = await registerThroughUi(page, s, 'individual');
      account = { username: reg.username, password: reg.password };
      await approveAccount(s, reg.username, '张三');
      const specs: DeviceSpec[] = makeSpecs(2, { seed: 11, prefix: uniqueName('INT').toUpperCase() });
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
          { name: (sn) => (sn === specs[0].sn ? '前台打印机' : '后厨打印机') },
        );
      } finally {
        await db.destroy();
      }
      fleet = await createFleet({
        url: s.mqttUrl,
        specs,
        start: false,
        randomFaults: false,
        stepMs: 200,
        printLineMs: 5,
      });
      await fleet.powerOn(specs[0].sn);
      const printer = specs[0];

      await page.reload();
      await openIntegration(page, s.url);
      await page.getByText('还没有应用密钥，点击“新建密钥”创建一个').waitFor();

      // Create: the form checks the fields, then the secret is shown once with a warning and a copy button.
      await page.getByRole('button', { name: /新建密钥/ }).click();
      const form = visibleModal(page, '新建应用密钥');
      await form.locator('#appKey_callbackUrl').fill('ftp://nowhere');
      await form.getByRole('button', { name: /创\s*建/ }).click();
      await form.getByText('请输入名称').waitFor();
      await form.getByText('请输入 http:// 或 https:// 开头的地址，不含用户名和密码，最多 500 个字符').waitFor();
      await form.locator('#appKey_name').fill('门店收银');
      await form.locator('#appKey_callbackUrl').fill('');
      await form.getByRole('button', { name: /创\s*建/ }).click();
      const once = visibleModal(page, '密钥已创建');
      await once.getByText('密钥只在此显示这一次，关闭后无法再次查看。如果遗失，只能轮换生成新密钥。').waitFor();
      const secret = ((await once.getByTestId('secret-value').textContent()) ?? '').trim();
      expect(secret.length).toBeGreaterThanOrEqual(32);
      await once.getByTestId('secret-copy').click();
      // the copy lands a moment after the click
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
      await settle(page);
      await shot(page, 'integration-secret-once-zh');
      await once.getByRole('button', { name: '我已保存，关闭' }).click();
      await once.waitFor({ state: 'hidden' });
      // gone: nowhere on the page, and the list has only its last four characters
      expect(await page.content()).not.toContain(secret);
      const row = keyRow(page, '门店收银');
      await row.waitFor();
      const appId = (await row.getAttribute('data-app-id'))!;
      await row.getByText(`密钥尾号 …${secret.slice(-4)}`).waitFor();
      expect(await row.getAttribute('data-state')).toBe('active');

      // A second key with an allow-list, to see the table with more than one.
      await page.getByRole('button', { name: /新建密钥/ }).click();
      await form.locator('#appKey_name').fill('小程序后台');
      await form.locator('#appKey_ipAllowList').fill('203.0.113.10\n10.0.0.0/8');
      await form.getByRole('button', { name: /创\s*建/ }).click();
      await visibleModal(page, '密钥已创建').getByRole('button', { name: '我已保存，关闭' }).click();
      await keyRow(page, '小程序后台').getByText('203.0.113.10').waitFor();

      // Set the callback URL of the first key.
      const callbackUrl = `http://127.0.0.1:${(hooks!.address() as AddressInfo).port}/cpc/callback`;
      await moreAction(page, '门店收银', '编辑');
      const edit = visibleModal(page, '编辑密钥 门店收银');
      await edit.locator('#appKey_callbackUrl').fill(callbackUrl);
      // its own rate limit: checked in the form, then saved and shown in the list (the default shows until then)
      await row.getByText('默认 50 次/秒').waitFor();
      await edit.locator('#appKey_rateLimit').fill('0');
      await edit.getByRole('button', { name: /保\s*存/ }).click();
      await edit.getByText('请输入 1 到 100000 之间的整数，或留空使用默认值').waitFor();
      await edit.locator('#appKey_rateLimit').fill('20');
      await edit.getByRole('button', { name: /保\s*存/ }).click();
      await page.getByText('密钥 门店收银 已保存').waitFor();
      await row.getByText(callbackUrl).waitFor();
      await row.getByText('20 次/秒').waitFor();
      await settle(page);
      await shot(page, 'integration-keys-zh');

      // Test print: a tag error is shown as it is typed; the job then goes to the online printer and prints.
      await tab(page, '测试打印').click();
      const editor = page.getByTestId('markup-editor').filter({ visible: true });
      await page.getByTestId('receipt').filter({ visible: true }).waitFor();
      await editor.fill('<C>E2E receipt\nline two');
      await page
        .getByTestId('markup-error')
        .filter({ visible: true })
        .getByText('第 1 行第 1 列，C 标签：标签没有闭合')
        .waitFor();
      await editor.fill('<C><B>E2E receipt</B></C>\n<HR>\nCoffee x2          30.00\n<R>Total 30.00</R>\n<CUT>');
      await page.getByTestId('markup-error').waitFor({ state: 'detached' });
      await page.getByTestId('receipt').filter({ visible: true, hasText: 'Coffee x2' }).waitFor();
      await pickOption(page, 'testPrint_keyId', '门店收银');
      await pickOption(page, 'testPrint_deviceId', '前台打印机');
      await page.getByRole('button', { name: /发送测试打印/ }).click();
      const state = page.getByTestId('test-job-state').filter({ visible: true });
      await expect.poll(() => state.getAttribute('data-state'), { timeout: 30_000 }).toBe('printed');
      expect(
        fleet
          .get(printer.sn)
          .printed.map((p) => p.lines.join('\n'))
          .join('\n'),
      ).toContain('Coffee x2');
      await settle(page);
      await shot(page, 'integration-test-print-zh');

      // The job list shows it printed, with its preview in the detail.
      await tab(page, '打印任务').click();
      const jobRow = page.locator('tr[data-job-id]').filter({ visible: true }).first();
      await expect.poll(() => jobRow.getAttribute('data-state'), { timeout: 15_000 }).toBe('printed');
      await jobRow.getByText('前台打印机').waitFor();
      await jobRow.getByRole('button', { name: '详情' }).click();
      const jobDrawer = drawer(page, '打印任务');
      await jobDrawer.getByTestId('receipt').filter({ hasText: 'Coffee x2' }).waitFor();
      expect(await jobDrawer.getByTestId('job-state').getAttribute('data-state')).toBe('printed');
      await settle(page);
      await shot(page, 'integration-job-detail-zh');
      await jobDrawer.locator('.ant-drawer-close').click();

      // The call is in the key's request log, marked as a test print; usage counts it.
      await tab(page, '应用密钥').click();
      await row.getByRole('button', { name: /日志/ }).click();
      const log = drawer(page, '门店收银 的调用');
      const call = log.locator('tr[data-call="POST /open/v1/print"]').first();
      await call.waitFor({ timeout: 15_000 });
      expect(await call.getAttribute('data-code')).toBe('200');
      await call.getByText('测试打印').waitFor();
      await log.getByText('实时刷新').waitFor();
      await shot(page, 'integration-request-log-zh');
      await log.getByRole('tab', { name: '用量' }).click();
      await log.getByTestId('usage-chart').waitFor();
      await expect
        .poll(async () => (await log.getByTestId('usage-totals').textContent()) ?? '')
        .toMatch(/调用次数1.*打印任务1/);
      await settle(page);
      await shot(page, 'integration-usage-zh');
      await log.locator('.ant-drawer-close').click();

      // Every state the job entered was POSTed to the callback URL, signed with the secret.
      await expect
        .poll(() => received.map((r) => JSON.parse(r.body).job.state), { timeout: 30_000 })
        .toContain('printed');
      for (const r of received) {
        expect(r.headers['x-cpc-app-id']).toBe(appId);
        expect(r.headers['x-cpc-signature']).toBe(createHmac('sha256', secret).update(r.body).digest('hex'));
      }
      await tab(page, '回调记录').click();
      const delivery = page.locator('tr[data-delivery-id]').filter({ visible: true }).first();
      await expect.poll(() => delivery.getAttribute('data-state'), { timeout: 15_000 }).toBe('succeeded');
      await delivery.getByRole('button', { name: '详情' }).click();
      const deliveryDrawer = drawer(page, '回调详情');
      await deliveryDrawer.getByTestId('delivery-body').filter({ hasText: '"print.job.state"' }).waitFor();
      const before = received.length;
      await deliveryDrawer.getByRole('button', { name: /重\s*发/ }).click();
      await page.getByText('已重发，对方返回 200').waitFor();
      expect(received.length).toBe(before + 1);
      await deliveryDrawer.getByText('手动').waitFor();
      await settle(page);
      await shot(page, 'integration-webhook-zh');
      await deliveryDrawer.locator('.ant-drawer-close').click();

      // The API reference's Node example, as copied, works against the real server with the secret.
      await tab(page, '接口文档').click();
      await page.getByRole('combobox', { name: '示例使用的密钥' }).click();
      await page.locator('.ant-select-item-option').filter({ visible: true, hasText: '门店收银' }).click();
      expect(await page.getByTestId('example-print').filter({ visible: true }).textContent()).toContain(appId);
      expect(await page.content()).not.toContain(secret);
      expect(await runNodeExample(page, '设备列表', 'devices', secret)).toMatch(/code: 200/);
      await shot(page, 'integration-docs-zh');

      // Rotate: the new secret is shown once; the old one stops working at once.
      await tab(page, '应用密钥').click();
      await moreAction(page, '门店收银', '轮换密钥');
      await confirmModal(page)
        .getByText('将生成新的密钥，旧密钥立即失效，使用旧密钥的调用会被拒绝。新密钥只显示一次。')
        .waitFor();
      await confirmModal(page)
        .getByRole('button', { name: /轮\s*换/ })
        .click();
      const rotated = visibleModal(page, '密钥已轮换');
      const newSecret = ((await rotated.getByTestId('secret-value').textContent()) ?? '').trim();
      expect(newSecret).not.toBe(secret);
      await rotated.getByRole('button', { name: '我已保存，关闭' }).click();
      await rotated.waitFor({ state: 'hidden' });
      await row.getByText(`密钥尾号 …${newSecret.slice(-4)}`).waitFor();
      await tab(page, '接口文档').click();
      expect(await runNodeExample(page, '设备列表', 'devices', secret)).toMatch(/reason: 'bad_signature'/);
      expect(await runNodeExample(page, '设备列表', 'devices', newSecret)).toMatch(/code: 200/);

      // Disable: calls are refused as app_disabled; delete: the key is gone, its job stays.
      await tab(page, '应用密钥').click();
      await moreAction(page, '门店收银', '停用');
      await confirmModal(page)
        .getByRole('button', { name: /停\s*用/ })
        .click();
      await page.getByText('密钥 门店收银 已停用').waitFor();
      await expect.poll(() => row.getAttribute('data-state')).toBe('disabled');
      await tab(page, '接口文档').click();
      expect(await runNodeExample(page, '设备列表', 'devices', newSecret)).toMatch(/reason: 'app_disabled'/);
      await tab(page, '应用密钥').click();
      await moreAction(page, '门店收银', '删除');
      await confirmModal(page)
        .getByRole('button', { name: /删\s*除/ })
        .click();
      await page.getByText('密钥 门店收银 已删除').waitFor();
      await row.waitFor({ state: 'detached' });
      await tab(page, '打印任务').click();
      await page.locator('tr[data-job-id]').filter({ visible: true }).first().getByText('密钥已删除').waitFor();

      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it('screenshots the page in zh and en, light and dark, desktop and 375 px', { timeout: 300_000 }, async () => {
    expect(account).toBeDefined();
    const s = server('plain');
    for (const lang of ['zh', 'en'] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        const { context, page, errors } = await newPage(browser, { lang });
        if (scheme === 'dark') await darkScheme(context);
        await login(page, s, account!.username, account!.password);
        await page.waitForFunction(() => !location.hash.startsWith('#/login'), null, { timeout: 15_000 });
        for (const [width, height, size] of [
          [1366, 860, 'desktop'],
          [375, 780, 'mobile'],
        ] as const) {
          await page.setViewportSize({ width, height });
          await page.goto(`${s.url}/#/integration/index`);
          await expectHash(page, /^#\/integration\/index/);
          const names =
            lang === 'zh'
              ? ['应用密钥', '打印任务', '测试打印', '接口文档']
              : ['App keys', 'Print jobs', 'Test print', 'API reference'];
          for (const [i, name] of names.entries()) {
            await openTab(page, name);
            await page.waitForLoadState('networkidle');
            await settle(page);
            await shot(page, `integration-${['keys', 'jobs', 'test', 'docs'][i]}-${lang}-${scheme}-${size}`);
          }
        }
        expect(errors).toEqual([]);
        await context.close();
      }
    }
  });
});

/** A tab by name; at phone width the tabs that do not fit are under the tab bar's "more" menu. */
async function openTab(page: Page, name: string) {
  const t = page.getByRole('tab', { name }).filter({ visible: true });
  const more = page.locator('.ant-tabs-nav-more').filter({ visible: true });
  // the page may still be drawing its tabs: wait for the tab, or for the "more" menu that holds it
  await t.or(more).first().waitFor();
  // the bar measures itself once drawn and moves what does not fit under "more": decide on a bar at rest (a box
  // read while it moved put the tab inside the window, and the click then waited on a tab outside it)
  let before: string | undefined;
  let box = null as Awaited<ReturnType<typeof t.boundingBox>>;
  await expect
    .poll(async () => {
      box = (await t.count()) ? await t.boundingBox() : null;
      const now = JSON.stringify(box);
      const same = now === before;
      before = now;
      return same;
    })
    .toBe(true);
  const width = page.viewportSize()?.width ?? 0;
  if (box && box.x >= 0 && box.x + box.width <= width) return t.click();
  await more.hover();
  await page.locator('.ant-tabs-dropdown-menu-item').filter({ visible: true, hasText: name }).click();
}

async function darkScheme(context: BrowserContext) {
  await context.addInitScript(() => {
    if (!localStorage.getItem('admin-plus-layout'))
      localStorage.setItem('admin-plus-layout', JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }));
  });
}
