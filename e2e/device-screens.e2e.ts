import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { createDb } from '../apps/server/src/db/database.ts';
import { createFleet, type Fleet } from '../apps/device-sim/src/fleet.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs, type DeviceSpec } from '../apps/device-sim/src/specs.ts';
import { launch, newPage, query, server, settle, shot } from './browser.ts';
import { approveAccount, login, registerThroughUi, expectHash } from './flows.ts';

let browser: Browser;
let fleet: Fleet | undefined;
let specs: DeviceSpec[] = [];
let account: { username: string; password: string };

/** A customer with six devices bound, five of them online (the simulator speaks the real device protocol). */
beforeAll(async () => {
  browser = await launch();
  const s = server('plain');
  const { context, page } = await newPage(browser, { lang: 'zh' });
  account = await registerThroughUi(page, s, 'individual');
  await context.close();
  await approveAccount(s, account.username, '张三');
  specs = makeSpecs(6, { seed: 11, prefix: `SCR${Date.now().toString(36).toUpperCase().slice(-6)}` });
  const db = createDb(s.databaseUrl, 2);
  try {
    await registerInDb(db, specs);
    const [{ id: tenantId }] = await query<{ id: number }>(
      s.databaseUrl,
      'SELECT tenant_id AS id FROM users WHERE username = $1',
      [account.username],
    );
    await bindInDb(
      db,
      Number(tenantId),
      specs.map((x) => x.sn),
      { name: (sn) => `门店打印机${specs.findIndex((x) => x.sn === sn) + 1}` },
    );
    // a day of samples for the first two: the telemetry chart has lines to draw
    await query(
      s.databaseUrl,
      `INSERT INTO device_telemetry (device_id, tenant_id, at, battery, signal, used_mb)
       SELECT d.id, d.tenant_id, now() - g * interval '40 minutes', 50 + (g % 40), 40 + (g % 50), g FROM devices d, generate_series(1, 34) g WHERE d.sn = ANY($1)`,
      [[specs[0].sn, specs[1].sn]],
    );
  } finally {
    await db.destroy();
  }
  fleet = await createFleet({ url: s.mqttUrl, specs: specs.slice(0, 5), heartbeatS: 30 });
  for (let i = 0; ; i++) {
    const [{ n }] = await query<{ n: number }>(
      s.databaseUrl,
      `SELECT count(*)::int AS n FROM devices WHERE status = 'online' AND sn = ANY($1)`,
      [specs.map((x) => x.sn)],
    );
    if (n === 5) break;
    if (i > 150) throw new Error(`${n} of 5 devices online`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 120_000);
afterAll(async () => {
  await fleet?.stop().catch(() => {});
  await browser?.close();
});

async function signIn(page: Page) {
  const s = server('plain');
  await login(page, s, account.username, account.password);
  await expectHash(page, /^#\/device\/index/);
}

/** How many pixels of a chart's canvas are painted in a strong colour (the series' lines, not the grey axes). */
const colouredPixels = (chart: Locator) =>
  chart
    .locator('canvas')
    .first()
    .evaluate((c: HTMLCanvasElement) => {
      if (!c.width || !c.height) return 0;
      const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height);
      let n = 0;
      for (let i = 0; i < data.length; i += 4) {
        const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
        if (a > 128 && Math.max(r, g, b) - Math.min(r, g, b) > 80) n++;
      }
      return n;
    })
    .catch(() => 0);

describe('the device detail', () => {
  it('draws the telemetry when opened from the list, without a reload', { timeout: 120_000 }, async () => {
    const { context, page, errors } = await newPage(browser, { lang: 'zh', width: 1440, height: 900 });
    await signIn(page);
    const row = page.locator(`tr[data-device-sn="${specs[0].sn}"]`).filter({ visible: true });
    await row.waitFor({ timeout: 15_000 });
    await row.getByTestId('device-link').click();
    await expectHash(page, /^#\/device\/detail\?id=\d+$/);
    const firstPath = new URL(page.url()).hash.slice(1);
    const chart = page.getByTestId('telemetry-chart').filter({ visible: true });
    await chart.waitFor({ timeout: 15_000 });
    // the three lines over a day of samples: far more colour than the legend's three marks
    await expect.poll(() => colouredPixels(chart), { timeout: 15_000 }).toBeGreaterThan(2_000);
    await settle(page);
    await shot(page, 'device-detail-from-list-zh');

    // back to the list, another device: the same tab shows it, its lines drawn
    await page.goto(`${server('plain').url}/#/device/index`);
    const second = page.locator(`tr[data-device-sn="${specs[1].sn}"]`).filter({ visible: true });
    await second.getByTestId('device-link').click();
    await page
      .locator('[data-testid="device-detail"]')
      .filter({ visible: true, hasText: specs[1].sn })
      .waitFor({ timeout: 15_000 });
    await expect.poll(() => colouredPixels(chart), { timeout: 15_000 }).toBeGreaterThan(2_000);
    await shot(page, 'device-detail-second-zh');

    // the detail's tab closed and the first device opened again: its telemetry is in the cache, so the chart
    // mounts at once, with the page still behind the list; it must still draw once shown
    await page.locator(`[data-tab-path="${firstPath}"] .cpc-tab__close`).click();
    await page.goto(`${server('plain').url}/#/device/index`);
    await row.getByTestId('device-link').click();
    await page
      .locator('[data-testid="device-detail"]')
      .filter({ visible: true, hasText: specs[0].sn })
      .waitFor({ timeout: 15_000 });
    await expect.poll(() => colouredPixels(chart), { timeout: 15_000 }).toBeGreaterThan(2_000);
    await shot(page, 'device-detail-again-zh');

    // a window made narrower: the chart follows it. A chart keeping the size it first measured would not, and
    // one first measured in a page not yet shown stayed 0 × 0: empty until a reload
    await page.setViewportSize({ width: 1000, height: 900 });
    await expect
      .poll(
        () =>
          chart
            .locator('canvas')
            .first()
            .evaluate((c) => Math.round(c.getBoundingClientRect().width)),
        { timeout: 10_000 },
      )
      .toBe(await chart.evaluate((e) => Math.round(e.getBoundingClientRect().width)));
    await page.setViewportSize({ width: 1440, height: 900 });

    expect(errors).toEqual([]);
    await context.close();
  });
});

const HEADERS = {
  zh: {
    status: '状态',
    device: '设备名称',
    paper: '纸张',
    battery: '电量',
    signal: '信号',
    simLeft: '剩余流量',
    lastSeen: '最后通信',
    actions: '操作',
  },
  en: {
    status: 'Status',
    device: 'Name / serial',
    paper: 'Paper',
    battery: 'Battery',
    signal: 'Signal',
    simLeft: 'Data left',
    lastSeen: 'Last seen',
    actions: 'Actions',
  },
};

/** The headers a 1366 px laptop shows by default: all but the signal (it waits for ≥ 1600 px). */
const laptopHeaders = (lang: 'zh' | 'en') =>
  Object.entries(HEADERS[lang])
    .filter(([key]) => key !== 'signal')
    .map(([, title]) => title);

/** The header cells' boxes, the fixed ones apart, and whether the table scrolls sideways. */
const tableLayout = (page: Page) =>
  page.evaluate(() => {
    const table = [...document.querySelectorAll<HTMLElement>('.ant-table-wrapper')].find(
      (t) => t.offsetParent && t.querySelector('tr[data-device-sn]'),
    )!;
    const box = (e: Element) => {
      const r = e.getBoundingClientRect();
      return { left: r.left, right: r.right, text: (e.textContent ?? '').trim() };
    };
    const ths = [...table.querySelectorAll('.ant-table-thead th')].filter((th) => (th as HTMLElement).offsetWidth > 0);
    const body = table.querySelector<HTMLElement>('.ant-table-body, .ant-table-content')!;
    // pinned cells are sticky; the ones pinned to the right end sit in the right half
    const pinned = (th: Element) => getComputedStyle(th).position === 'sticky';
    const mid = table.getBoundingClientRect().left + table.getBoundingClientRect().width / 2;
    return {
      titles: ths.map((th) => (th.textContent ?? '').trim()),
      headers: ths.filter((th) => !pinned(th)).map(box),
      fixedRight: ths.filter((th) => pinned(th) && th.getBoundingClientRect().left > mid).map(box),
      scrolls: body.scrollWidth > body.clientWidth + 1,
    };
  });

describe('the device list', () => {
  it(
    'shows the columns that matter at 1366 × 768 without a sideways scroll, and keeps the columns a user chooses',
    { timeout: 300_000 },
    async () => {
      const { context, page, errors } = await newPage(browser, { lang: 'zh', width: 1366, height: 768 });
      await signIn(page);
      await page.locator('tr[data-device-sn]').filter({ visible: true }).first().waitFor({ timeout: 15_000 });
      const layout = await tableLayout(page);
      expect(layout.scrolls).toBe(false);
      for (const title of laptopHeaders('zh'))
        expect(
          layout.titles.some((h) => h.startsWith(title)),
          title,
        ).toBe(true);
      expect(layout.titles.some((h) => h.startsWith(HEADERS.zh.signal))).toBe(false);
      // no header runs under the pinned actions column
      const actions = layout.fixedRight.find((h) => h.text === HEADERS.zh.actions);
      expect(actions).toBeDefined();
      for (const h of layout.headers) expect(h.right, h.text).toBeLessThanOrEqual(actions!.left + 1);
      await settle(page);
      await shot(page, 'device-list-1366-zh-light');

      // the chooser hides the battery column; it stays hidden after a reload, and shows again when chosen
      await page.getByTestId('column-chooser-button').filter({ visible: true }).click();
      const chooser = page.getByTestId('column-chooser').filter({ visible: true });
      await chooser.getByRole('checkbox', { name: '电量' }).uncheck();
      await expect
        .poll(async () => (await tableLayout(page)).headers.some((h) => h.text.startsWith('电量')))
        .toBe(false);
      await chooser.getByRole('checkbox', { name: '固件版本' }).check();
      await expect
        .poll(async () => (await tableLayout(page)).headers.some((h) => h.text.startsWith('固件版本')))
        .toBe(true);
      await page.reload();
      await page.locator('tr[data-device-sn]').filter({ visible: true }).first().waitFor({ timeout: 15_000 });
      const after = await tableLayout(page);
      expect(after.headers.some((h) => h.text.startsWith('电量'))).toBe(false);
      expect(after.headers.some((h) => h.text.startsWith('固件版本'))).toBe(true);
      await page.getByTestId('column-chooser-button').filter({ visible: true }).click();
      await page
        .getByTestId('column-chooser')
        .filter({ visible: true })
        .getByRole('button', { name: '恢复默认' })
        .click();
      await expect
        .poll(async () => (await tableLayout(page)).headers.some((h) => h.text.startsWith('电量')))
        .toBe(true);
      expect(errors).toEqual([]);
      await context.close();

      for (const lang of ['zh', 'en'] as const) {
        for (const scheme of ['light', 'dark'] as const) {
          const other = await newPage(browser, { lang, width: 1366, height: 768 });
          if (scheme === 'dark') {
            await other.context.addInitScript(() => {
              if (!localStorage.getItem('admin-plus-layout'))
                localStorage.setItem(
                  'admin-plus-layout',
                  JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }),
                );
            });
          }
          await signIn(other.page);
          for (const [width, height] of [
            [1366, 768],
            [375, 780],
          ] as const) {
            await other.page.setViewportSize({ width, height });
            await other.page
              .locator('tr[data-device-sn]')
              .filter({ visible: true })
              .first()
              .waitFor({ timeout: 15_000 });
            if (width === 1366) {
              const l = await tableLayout(other.page);
              expect(l.scrolls, `${lang} ${scheme}`).toBe(false);
              for (const title of laptopHeaders(lang))
                expect(
                  l.titles.some((h) => h.startsWith(title)),
                  title,
                ).toBe(true);
            }
            await settle(other.page);
            await shot(other.page, `device-list-${width}-${lang}-${scheme}`);
          }
          expect(other.errors).toEqual([]);
          await other.context.close();
        }
      }
    },
  );
});

/** The smallest patch of the legend's online colour on the map canvas: a single device's dot (bubbles are bigger). */
async function onlineDot(page: Page): Promise<{ x: number; y: number; size: number } | null> {
  return page.evaluate(() => {
    const legend = document.querySelector<HTMLElement>('[data-legend="online"]');
    const rgb = legend ? getComputedStyle(legend).backgroundColor.match(/\d+/g)!.map(Number) : null;
    if (!rgb) return null;
    // the dots are drawn on a layer (canvas) of their own, above the map's
    let best: { x: number; y: number; n: number; canvas: HTMLCanvasElement } | null = null;
    for (const canvas of document.querySelectorAll<HTMLCanvasElement>('[data-testid="device-map"] canvas')) {
      const { width, height } = canvas;
      if (!width || !height) continue;
      const px = canvas.getContext('2d')!.getImageData(0, 0, width, height).data;
      const match = (i: number) =>
        Math.abs(px[i * 4] - rgb[0]) < 12 &&
        Math.abs(px[i * 4 + 1] - rgb[1]) < 12 &&
        Math.abs(px[i * 4 + 2] - rgb[2]) < 12 &&
        px[i * 4 + 3] > 200;
      const seen = new Uint8Array(width * height);
      for (let start = 0; start < width * height; start++) {
        if (seen[start] || !match(start)) continue;
        seen[start] = 1;
        const queue = [start];
        let [sx, sy, n] = [0, 0, 0];
        while (queue.length) {
          const i = queue.pop()!;
          const x = i % width;
          sx += x;
          sy += (i - x) / width;
          n++;
          for (const j of [x > 0 ? i - 1 : -1, x < width - 1 ? i + 1 : -1, i - width, i + width]) {
            if (j >= 0 && j < width * height && !seen[j] && match(j)) {
              seen[j] = 1;
              queue.push(j);
            }
          }
        }
        // specks of anti-aliasing apart
        if (n > 4 && (!best || n < best.n)) best = { x: sx / n, y: sy / n, n, canvas };
      }
    }
    if (!best) return null;
    const rect = best.canvas.getBoundingClientRect();
    const scale = best.canvas.width / rect.width;
    return {
      x: rect.left + best.x / scale,
      y: rect.top + best.y / scale,
      size: (2 * Math.sqrt(best.n / Math.PI)) / scale,
    };
  });
}

/** Painted pixels in the bottom-right corner of the map's drawn area, where the South China Sea inset goes. */
const insetPixels = (page: Page) =>
  page.evaluate(() => {
    const canvas = [...document.querySelectorAll<HTMLCanvasElement>('[data-testid="device-map"] canvas')].find(
      (c) => c.width > 0,
    )!;
    const { width, height } = canvas;
    const px = canvas.getContext('2d')!.getImageData(0, 0, width, height).data;
    let [x0, y0, x1, y1] = [width, height, 0, 0];
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++)
        if (px[(y * width + x) * 4 + 3] > 0)
          [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
    let n = 0;
    for (let y = Math.round(y1 - (y1 - y0) * 0.25); y <= y1; y++)
      for (let x = Math.round(x1 - (x1 - x0) * 0.1); x <= x1; x++) if (px[(y * width + x) * 4 + 3] > 0) n++;
    return n;
  });

describe('the device map', () => {
  it('names a device when its dot is hovered, and shows the South China Sea inset', { timeout: 120_000 }, async () => {
    const { context, page, errors } = await newPage(browser, { lang: 'zh', width: 1440, height: 900 });
    await signIn(page);
    await page.goto(`${server('plain').url}/#/device/map`);
    await page.locator('[data-testid="device-map"] canvas').first().waitFor({ timeout: 20_000 });
    await page.locator('[data-testid="map-located"]').filter({ hasText: '已定位 5 台' }).waitFor({ timeout: 15_000 });
    await settle(page);
    expect(await insetPixels(page)).toBeGreaterThan(200);
    await shot(page, 'device-map-zh-1440');
    const dot = await onlineDot(page);
    expect(dot).not.toBeNull();
    // about 12 px across with its outline: big enough to point at
    expect(dot!.size).toBeGreaterThanOrEqual(9);
    await page.mouse.move(dot!.x, dot!.y);
    const tooltip = page
      .locator('div')
      .filter({ hasText: /^门店打印机\d/ })
      .filter({ visible: true });
    await expect.poll(() => tooltip.last().textContent(), { timeout: 10_000 }).toMatch(/门店打印机\d · 在线SCR/);
    await shot(page, 'device-map-tooltip-zh');
    expect(errors).toEqual([]);
    await context.close();
  });
});
