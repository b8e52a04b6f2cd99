import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { createDb, type Db } from '../apps/server/src/db/database.ts';
import { createFleet, type Fleet } from '../apps/device-sim/src/fleet.ts';
import { registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs, type DeviceSpec } from '../apps/device-sim/src/specs.ts';
import { launch, newPage, query, server, shot, uniqueName, settle } from './browser.ts';
import { approveAccount, openAfterApproval, login, registerThroughUi, expectHash } from './flows.ts';

type Server = ReturnType<typeof server>;

/** The share of a chart's canvas that is painted (the charts draw on a canvas: shapes are pixels, not elements). */
const painted = (chart: Locator) =>
  chart
    .locator('canvas')
    .first()
    .evaluate((c: HTMLCanvasElement) => {
      const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height);
      let n = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
      return n / (c.width * c.height);
    })
    .catch(() => 0);

let browser: Browser;
let db: Db | undefined;
let fleet: Fleet | undefined;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await fleet?.stop().catch(() => {});
  await db?.destroy();
  await browser?.close();
});

/**
 * The console API as a customer's script would call it: its own login (the captcha answered from the database),
 * and a new login when the short-lived token of the e2e server has run out.
 */
async function apiSession(s: Server, username: string, password: string) {
  let token = '';
  const signIn = async () => {
    const captcha = (await (await fetch(`${s.url}/apiAdmin/captcha`)).json()) as { data: { captchaId: string } };
    const [{ answer }] = await query<{ answer: string }>(s.databaseUrl, 'SELECT answer FROM captchas WHERE id = $1', [
      captcha.data.captchaId,
    ]);
    const res = await fetch(`${s.url}/apiAdmin/user/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password, captchaId: captcha.data.captchaId, captcha: answer }),
    });
    token = ((await res.json()) as { data: { token: string } }).data.token;
  };
  await signIn();
  return async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${s.url}/apiAdmin${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const envelope = (await res.json()) as { code: number; msg: string; data: T };
      if (envelope.code === 402 && attempt === 0) {
        await signIn();
        continue;
      }
      if (envelope.code !== 200) throw new Error(`${method} ${path}: ${envelope.code} ${envelope.msg}`);
      return envelope.data;
    }
  };
}

/** A customer registered through the screens and approved by staff (through SQL: another flow tests review). */
async function approvedCustomer(page: Page, s: Server) {
  const account = await registerThroughUi(page, s, 'enterprise');
  await approveAccount(s, account.username, '云打印看板测试有限公司');
  await openAfterApproval(page, s);
  return account;
}

const card = (page: Page, key: string) => page.getByTestId(`card-${key}`);
const statistic = (page: Page, key: string) => card(page, key).locator('.ant-statistic-content');

async function openDashboard(page: Page, s: Server) {
  await page.goto(`${s.url}/#/index`);
  await expectHash(page, /^#\/index/);
  await page.getByTestId('dashboard').filter({ visible: true }).waitFor();
}

async function darkContext(context: BrowserContext) {
  await context.addInitScript(() => {
    if (!localStorage.getItem('admin-plus-layout'))
      localStorage.setItem('admin-plus-layout', JSON.stringify({ state: { colorScheme: 'dark' }, version: 1 }));
  });
}

describe('the home dashboard', () => {
  it(
    'shows a customer with devices the right figures, the map, and reminders that open the filtered list',
    { timeout: 300_000 },
    async () => {
      const s = server('plain');
      const { context, page, errors } = await newPage(browser, { lang: 'zh' });
      const account = await approvedCustomer(page, s);
      const api = await apiSession(s, account.username, account.password);

      // The factory makes four devices; the customer binds them all, two into a group.
      db = createDb(s.databaseUrl, 2);
      const specs: DeviceSpec[] = makeSpecs(4, {
        seed: Date.now() % 100_000,
        prefix: uniqueName('DASH').toUpperCase(),
      });
      await registerInDb(db, specs);
      // Three of them power on before they are bound (the simulator speaks the real device protocol): bound while online.
      fleet = await createFleet({ url: s.mqttUrl, specs: specs.slice(0, 3), heartbeatS: 30 });
      await expect
        .poll(
          async () =>
            (
              await query<{ n: number }>(
                s.databaseUrl,
                `SELECT count(*)::int AS n FROM devices WHERE status = 'online' AND sn = ANY($1)`,
                [specs.map((x) => x.sn)],
              )
            )[0].n,
          { timeout: 30_000 },
        )
        .toBe(3);
      const shop = await api<{ id: number }>('POST', '/device/group/add', { name: '一号门店' });
      const ids: number[] = [];
      for (const [i, spec] of specs.entries()) {
        const bound = await api<{ id: number }>('POST', '/device/bind', {
          sn: spec.sn,
          bindKey: spec.bindKey,
          name: `收银台${i + 1}`,
          groupId: i < 2 ? shop.id : null,
        });
        ids.push(bound.id);
      }
      // The fourth was bound days ago and never came online: it is the one offline for more than 24 h.
      await query(s.databaseUrl, `UPDATE devices SET bound_at = now() - interval '3 days' WHERE id = $1`, [ids[3]]);
      // The third one's SIM has 30 MB of its plan left: less than 50 MB, it is low (not used up).
      await query(s.databaseUrl, `UPDATE sims SET plan_total_mb = used_mb + 30 WHERE iccid = $1`, [specs[2].iccid]);
      expect(
        (await query<{ state: string }>(s.databaseUrl, 'SELECT state FROM sims WHERE iccid = $1', [specs[2].iccid]))[0]
          .state,
      ).toBe('low');

      // One runs out of paper.
      fleet.get(specs[1].sn).runOutOfPaper();
      // A reboot for the offline one waits in the queue: the one task of today.
      await api('POST', '/device/command', { deviceIds: [ids[3]], type: 'reboot' });
      await expect
        .poll(
          async () =>
            (
              await query<{ online: number; out: number }>(
                s.databaseUrl,
                `SELECT count(*) FILTER (WHERE status = 'online')::int AS online, count(*) FILTER (WHERE paper = 'out')::int AS out FROM devices WHERE id = ANY($1)`,
                [ids],
              )
            )[0],
          { timeout: 30_000 },
        )
        .toEqual({ online: 3, out: 1 });
      const provinces = await query<{ province: string; n: string }>(
        s.databaseUrl,
        `SELECT province, count(*) AS n FROM devices WHERE id = ANY($1) AND province <> '' GROUP BY province ORDER BY count(*) DESC, province LIMIT 1`,
        [ids],
      );
      expect(provinces).toHaveLength(1);

      const overview = page.waitForResponse(
        (r) => r.url().includes('/apiAdmin/dashboard/overview') && r.status() === 200,
      );
      await openDashboard(page, s);
      const shown = (
        (await (await overview).json()) as {
          data: { cards: { dataUsedMonthMb: number }; trend: { points: Array<{ online: number }> } };
        }
      ).data;

      await expect.poll(() => statistic(page, 'devices').textContent()).toBe('4');
      expect(await statistic(page, 'online').textContent()).toBe('3');
      expect(await card(page, 'online').getByText('在线率 75%').count()).toBe(1);
      // the trend the page draws agrees with the card: the three were online when bound, and its latest point counts them
      expect(shown.trend.points.at(-1)?.online).toBe(3);
      expect(await statistic(page, 'tasksToday').textContent()).toBe('1');
      // the data figure is the server's, in MB or GB
      expect(await statistic(page, 'dataMonth').textContent()).toMatch(
        shown.cards.dataUsedMonthMb > 0 ? /^[\d.]+ (KB|MB|GB)$/ : /^0 MB$/,
      );

      // The map of China is drawn (every province a shape) and the busiest province leads the list beside it.
      await expect.poll(() => painted(page.locator('[data-chart="map"]')), { timeout: 30_000 }).toBeGreaterThan(0.05);
      expect(
        await page.getByTestId('province-list').locator('[data-province]').first().getAttribute('data-province'),
      ).toBe(provinces[0].province);

      // Reminders: paper out, offline for a day, SIM low — one device each.
      for (const kind of ['paper', 'offline', 'simLow']) {
        expect(await page.getByTestId(`remind-${kind}`).getAttribute('data-count'), kind).toBe('1');
      }
      await page.getByTestId('widget-remind').getByText('收银台4 · 从未上线').waitFor();
      await page.getByTestId('widget-group-rank').getByText('一号门店').waitFor();
      await expect
        .poll(() => painted(page.getByTestId('widget-versions').locator('[data-chart="chart"]')), { timeout: 15_000 })
        .toBeGreaterThan(0.005);
      await settle(page);
      await shot(page, 'dashboard-customer-zh-light-desktop');

      // The offline reminder opens my devices filtered to the offline ones.
      await page.getByTestId('remind-offline').click();
      await expectHash(page, /^#\/device\/index\?(.*&)?status=offline(&|$)/);

      // The trend switches to hours.
      await openDashboard(page, s);
      const hourly = page.waitForResponse(
        (r) => r.url().includes('/apiAdmin/dashboard/trend') && r.url().includes('unit=hour') && r.status() === 200,
      );
      await page.getByTestId('widget-trend').getByText('按小时').click();
      await hourly;

      expect(errors).toEqual([]);
      await context.close();

      // The same dashboard in both languages, light and dark, desktop and phone.
      for (const lang of ['zh', 'en'] as const) {
        for (const scheme of ['light', 'dark'] as const) {
          const other = await newPage(browser, { lang });
          if (scheme === 'dark') await darkContext(other.context);
          await login(other.page, s, account.username, account.password);
          await expectHash(other.page, /^#\/device\/index/);
          for (const [width, height, size] of [
            [1366, 860, 'desktop'],
            [375, 780, 'mobile'],
          ] as const) {
            await other.page.setViewportSize({ width, height });
            await openDashboard(other.page, s);
            await expect
              .poll(() => painted(other.page.locator('[data-chart="map"]')), { timeout: 30_000 })
              .toBeGreaterThan(0.05);
            await other.page.waitForLoadState('networkidle');
            await settle(other.page);
            await shot(other.page, `dashboard-customer-${lang}-${scheme}-${size}`);
          }
          expect(other.errors).toEqual([]);
          await other.context.close();
        }
      }
    },
  );

  it('invites a new customer to bind a first device', { timeout: 180_000 }, async () => {
    const s = server('plain');
    for (const lang of ['zh', 'en'] as const) {
      const { context, page, errors } = await newPage(browser, { lang });
      await approvedCustomer(page, s);
      await openDashboard(page, s);
      const invite = page.getByTestId('dashboard-empty');
      await invite.getByText(lang === 'zh' ? '还没有绑定设备' : 'No devices bound yet').waitFor();
      expect(await statistic(page, 'devices').textContent()).toBe('0');
      expect(await statistic(page, 'dataMonth').textContent()).toBe('0 MB');
      expect(await page.getByTestId('widget-map').count()).toBe(0);
      await settle(page);
      await shot(page, `dashboard-new-customer-${lang}`);
      await invite.getByRole('button', { name: lang === 'zh' ? /去绑定设备/ : /Bind a device/ }).click();
      await expectHash(page, /^#\/device\/index/);
      expect(errors).toEqual([]);
      await context.close();
    }
  });
});
