import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createFleet, type Fleet } from '../apps/device-sim/src/fleet.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs } from '../apps/device-sim/src/specs.ts';
import { createDb } from '../apps/server/src/db/database.ts';
import { launch, newPage, query, server, settle, shot } from './browser.ts';
import { approveAccount, expectHash, login, registerThroughUi } from './flows.ts';

let browser: Browser;
let fleet: Fleet | undefined;
let hooks: HttpServer | undefined;
/** What the customer's own callback endpoint received. */
const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];

beforeAll(async () => {
  browser = await launch();
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
});

const darkContext = (context: BrowserContext) =>
  context.addInitScript(() => {
    if (!localStorage.getItem('admin-plus-layout'))
      localStorage.setItem('admin-plus-layout', JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }));
  });

/** The bearer token the page itself sends last (its session). */
const tokens = new WeakMap<Page, string>();
const watchToken = (page: Page) =>
  page.on('request', (r) => {
    const auth = r.headers()['authorization'];
    if (auth && r.url().includes('/apiAdmin/')) tokens.set(page, auth);
  });

/**
 * A console call with the page's session (what the page itself would send). Access tokens live 8 s on the test
 * server: the page is reloaded first, so it refreshes its session and the call goes with a fresh token.
 */
async function api<T>(page: Page, method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
  await page.reload();
  await page.waitForLoadState('networkidle');
  const answer = await page.evaluate(
    async ({ method, url, body, auth }) => {
      const res = await fetch(`/apiAdmin${url}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: auth },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await res.json()) as { code: number; msg: string; data: unknown };
    },
    { method, url, body, auth: tokens.get(page) ?? '' },
  );
  if (answer.code !== 200) throw new Error(`${method} ${url}: ${answer.code} ${answer.msg}`);
  return answer.data as T;
}

/** Zooms the map out with its own button, `times` steps. */
async function zoomOut(page: Page, map: string, times: number) {
  for (let i = 0; i < times; i++) {
    await page.getByTestId(map).locator('.leaflet-control-zoom-out').click();
    await page.waitForTimeout(350);
  }
}

describe('geofencing in the console', () => {
  it(
    'draws a fence around a simulated device, sees it leave live, gets the webhook; zh and en, light and dark',
    { timeout: 420_000 },
    async () => {
      const s = server('plain');
      const { context, page, errors } = await newPage(browser, { lang: 'zh' });
      watchToken(page);
      const reg = await registerThroughUi(page, s, 'individual');
      await approveAccount(s, reg.username, '张三');
      const [{ tenant_id: tenantId }] = await query<{ tenant_id: number }>(
        s.databaseUrl,
        'SELECT tenant_id FROM users WHERE username = $1',
        [reg.username],
      );
      // two simulated printers of the account that stay where they are (GPS jitter only), reporting every 2 s
      const specs = makeSpecs(2, { seed: 16, prefix: `FEN${Date.now().toString(36).toUpperCase().slice(-5)}` });
      const db = createDb(s.databaseUrl, 2);
      try {
        await registerInDb(db, specs);
        await bindInDb(
          db,
          Number(tenantId),
          specs.map((x) => x.sn),
        );
      } finally {
        await db.destroy();
      }
      fleet = await createFleet({
        url: s.mqttUrl,
        specs,
        start: false,
        randomFaults: false,
        locationEveryS: 2,
        movement: { routeShare: 0, wanderShare: 0, jitterM: 2 },
      });
      const sn = specs[0].sn;
      const [{ id: deviceId }] = await query<{ id: number }>(s.databaseUrl, 'SELECT id FROM devices WHERE sn = $1', [
        sn,
      ]);

      // the guard loaded this user as unauthenticated: a reload makes it ask again
      await page.reload();
      await page.goto(`${s.url}/#/fence/index`);
      await expectHash(page, /^#\/fence\/index/);
      // no tile URL on this server: the offline base layer, provinces and cities
      const indexMap = page.getByTestId('fence-map');
      await indexMap.waitFor({ timeout: 20_000 });
      expect(await indexMap.getAttribute('data-base')).toBe('offline');
      await page.getByText('还没有围栏').first().waitFor();
      // an API key whose callback is the receiver above: fence alerts are POSTed there, signed with its secret
      const key = await api<{ secret: string }>(page, 'POST', '/integration/key/create', {
        name: 'fence hooks',
        callbackUrl: `http://127.0.0.1:${(hooks!.address() as AddressInfo).port}/cpc/callback`,
      });
      await settle(page);
      await shot(page, 'fence-index-empty-zh');

      // the editor: choose the device, the map goes to it; draw a circle around it
      await page.getByTestId('fence-new').click();
      await expectHash(page, /^#\/fence\/fenceSetting$/);
      await page.getByTestId('fence-name').fill('门店一号');
      const devices = page.getByTestId('fence-devices-select');
      await devices.click();
      await devices.locator('input').fill(sn);
      await page.locator('.ant-select-item-option', { hasText: sn }).first().click();
      await page.keyboard.press('Escape');
      // the printers come on only now: the editor read the positions before the first fix, and the device's
      // live report puts it on the map
      await fleet.start();
      const editor = page.getByTestId('fence-editor-map');
      const dot = editor.locator('.geo-map-dot');
      await dot.first().waitFor({ timeout: 20_000 });
      // fitted to the device: street zoom
      await page.waitForTimeout(800);
      // measured after the click on the button, which may scroll the page (the device list scrolled it down)
      await page.getByTestId('draw-circle').click();
      await page.waitForTimeout(500);
      let box = await dot.first().boundingBox();
      await expect.poll(async () => (box = await dot.first().boundingBox()), { timeout: 10_000 }).not.toBeNull();
      if (!box) throw new Error('no device on the map');
      const cx = box.x + box.width / 2 - 30;
      const cy = box.y + box.height / 2 + 10;
      await page.mouse.move(cx, cy);
      await page.mouse.click(cx, cy);
      await page.mouse.move(cx + 60, cy, { steps: 4 });
      // the cursor's coordinates are shown while drawing
      await page.getByTestId('geo-map-cursor').waitFor();
      await page.mouse.move(cx + 150, cy, { steps: 6 });
      await settle(page);
      await shot(page, 'fence-setting-drawing-zh');
      await page.mouse.click(cx + 150, cy);
      const radius = page.getByTestId('circle-radius').locator('xpath=descendant-or-self::input');
      await radius.waitFor();
      expect(Number(await radius.inputValue())).toBeGreaterThan(100);
      await page.getByTestId('fence-dwell').locator('xpath=descendant-or-self::input').fill('3');
      await settle(page);
      await shot(page, 'fence-setting-zh');
      await page.getByTestId('fence-save').click();
      await page.getByText('围栏已创建', { exact: true }).waitFor({ timeout: 15_000 });
      await expectHash(page, /^#\/fence\/index/);

      // the list: the fence with the device inside
      const table = page.getByTestId('fence-table');
      await table.getByText('门店一号').waitFor({ timeout: 15_000 });
      const [{ id: fenceId }] = await query<{ id: number }>(s.databaseUrl, 'SELECT id FROM fences WHERE name = $1', [
        '门店一号',
      ]);
      await expect
        .poll(() => page.getByTestId(`fence-counts-${fenceId}`).textContent(), { timeout: 30_000 })
        .toMatch(/^1\/0\/1$/);
      await table.getByText('门店一号').click();
      const panel = page.getByTestId('fence-panel');
      await panel.getByTestId('fence-devices').getByText('围栏内').waitFor({ timeout: 15_000 });
      await settle(page);
      await shot(page, 'fence-index-inside-zh');

      // the device leaves: the alert arrives live, without a reload
      const navigations: string[] = [];
      page.on('framenavigated', (f) => f === page.mainFrame() && navigations.push(f.url()));
      const device = fleet.get(sn);
      await device.moveTo(specs[0].city.lat + 0.05, specs[0].city.lng + 0.05);
      await page.getByText(/离开了围栏“门店一号”/).waitFor({ timeout: 30_000 });
      await panel.getByRole('tab', { name: '进出记录' }).click();
      await panel.getByTestId('fence-events').getByText('离开').first().waitFor({ timeout: 15_000 });
      await panel.getByRole('tab', { name: '设备' }).click();
      await panel.getByTestId('fence-devices').getByText('围栏外').waitFor({ timeout: 15_000 });
      expect(navigations).toEqual([]);
      await settle(page);
      await shot(page, 'fence-index-left-zh');

      // the webhook, signed with the key's secret
      await expect
        .poll(() => received.filter((r) => r.body.includes('"fence.leave"')).length, { timeout: 30_000 })
        .toBeGreaterThan(0);
      const hook = received.find((r) => r.body.includes('"fence.leave"'))!;
      const payload = JSON.parse(hook.body) as Record<string, unknown>;
      expect(JSON.stringify(payload)).toContain(sn);
      expect(JSON.stringify(payload)).toContain('门店一号');
      expect(hook.headers['x-cpc-signature']).toBe(
        createHmac('sha256', key.secret).update(hook.body, 'utf8').digest('hex'),
      );

      // the offline base layer at city zoom: the cities' borders of the province in view
      await zoomOut(page, 'fence-map', 6);
      await settle(page);
      await shot(page, 'fence-index-offline-city-zoom-zh');

      // the device's detail: its fences and its track
      await page.goto(`${s.url}/#/device/detail?id=${deviceId}`);
      const card = page.getByTestId('device-fences');
      await card.getByText('门店一号').waitFor({ timeout: 15_000 });
      await card.getByText('围栏外').waitFor();
      await card.scrollIntoViewIfNeeded();
      await settle(page);
      await shot(page, 'fence-device-card-zh');

      // a self-intersecting polygon is refused by the server, named next to the map
      await page.goto(`${s.url}/#/fence/fenceSetting?id=${fenceId}`);
      await page.getByTestId('fence-name').waitFor();
      expect(await page.getByTestId('fence-name').inputValue()).toBe('门店一号');
      await page.getByTestId('draw-polygon').click();
      const emap = (await page.getByTestId('fence-editor-map').boundingBox())!;
      const mx = emap.x + emap.width / 2;
      const my = emap.y + emap.height / 2;
      // a lopsided bow tie: its first and third sides cross (a symmetric one would enclose no area at all)
      for (const [dx, dy] of [
        [-80, -80],
        [80, 80],
        [80, -20],
        [-80, 80],
      ]) {
        await page.mouse.click(mx + dx, my + dy);
        await page.waitForTimeout(200);
      }
      await page.mouse.click(mx - 80, my - 80);
      await page.getByText('多边形，4 个顶点').waitFor({ timeout: 10_000 });
      await page.getByTestId('fence-save').click();
      await page
        .locator('.ant-form-item-explain-error, .ant-alert-error')
        .filter({ hasText: /交叉/ })
        .first()
        .waitFor({ timeout: 15_000 });
      // nothing changed: still the circle
      const [{ shape }] = await query<{ shape: { type: string } }>(
        s.databaseUrl,
        'SELECT shape FROM fences WHERE id = $1',
        [fenceId],
      );
      expect(shape.type).toBe('circle');
      await settle(page);
      await shot(page, 'fence-setting-self-intersecting-zh');
      expect(errors).toEqual([]);
      await context.close();

      // en, dark: the list, the editor and the device card
      const en = await newPage(browser, { lang: 'en' });
      await darkContext(en.context);
      await login(en.page, s, reg.username, reg.password);
      await en.page.waitForURL(/#\/(?!login)/, { timeout: 20_000 });
      await en.page.goto(`${s.url}/#/fence/index?id=${fenceId}`);
      await en.page.getByTestId('fence-table').getByText('门店一号').waitFor({ timeout: 15_000 });
      await en.page.getByTestId('fence-devices').getByText('Outside').waitFor({ timeout: 15_000 });
      await settle(en.page);
      await shot(en.page, 'fence-index-en-dark');
      await zoomOut(en.page, 'fence-map', 6);
      await settle(en.page);
      await shot(en.page, 'fence-index-offline-city-zoom-en-dark');
      await en.page.goto(`${s.url}/#/fence/fenceSetting?id=${fenceId}`);
      await en.page.getByText('Edit fence').waitFor({ timeout: 15_000 });
      await settle(en.page);
      await shot(en.page, 'fence-setting-en-dark');
      await en.page.goto(`${s.url}/#/device/detail?id=${deviceId}`);
      const enCard = en.page.getByTestId('device-fences');
      await enCard.getByText('Outside').waitFor({ timeout: 15_000 });
      await enCard.scrollIntoViewIfNeeded();
      await settle(en.page);
      await shot(en.page, 'fence-device-card-en-dark');
      expect(en.errors).toEqual([]);
      await en.context.close();

      // a phone's width, zh light and en
      for (const lang of ['zh', 'en'] as const) {
        const phone = await newPage(browser, { lang, width: 375, height: 800 });
        await login(phone.page, s, reg.username, reg.password);
        await phone.page.waitForURL(/#\/(?!login)/, { timeout: 20_000 });
        await phone.page.goto(`${s.url}/#/fence/index?id=${fenceId}`);
        await phone.page.getByTestId('fence-table').getByText('门店一号').waitFor({ timeout: 15_000 });
        await settle(phone.page);
        await shot(phone.page, `fence-index-${lang}-375`);
        await phone.page.goto(`${s.url}/#/fence/fenceSetting?id=${fenceId}`);
        await phone.page.getByTestId('fence-name').waitFor({ timeout: 15_000 });
        await settle(phone.page);
        await shot(phone.page, `fence-setting-${lang}-375`);
        expect(phone.errors).toEqual([]);
        await phone.context.close();
      }
    },
  );
});
