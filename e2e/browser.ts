import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { inject } from 'vitest';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.resolve(import.meta.dirname, '../test-artifacts/e2e');

/** The system Chromium; a missing browser is a failure, never a skip. */
export async function launch(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium fonts-wqy-microhei`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A server of this worker's own set: `VITEST_POOL_ID` numbers the workers from 1, and each has its servers and
 * databases, so a flow never sees another file's captcha, SMS code, mail or data.
 */
export const server = (name: 'plain' | 'legacy' | 'modern' = 'plain') => {
  const sets = inject('serverSets');
  const worker = Math.max(1, Number(process.env.VITEST_POOL_ID) || 1);
  return sets[(worker - 1) % sets.length][name];
};

export async function newPage(
  browser: Browser,
  opts: { lang?: 'zh' | 'en'; width?: number; height?: number } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1366, height: opts.height ?? 860 },
    locale: opts.lang === 'en' ? 'en-US' : 'zh-CN',
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  if (opts.lang)
    await context.addInitScript(
      (lang) => localStorage.getItem('language') ?? localStorage.setItem('language', lang),
      opts.lang,
    );
  return { context, page, errors };
}

/**
 * Waits until what moves has stopped before a screenshot: CSS and Web animations (a modal's zoom, a drawer's
 * slide, a fade) that are running and not endless, and, on a page with a chart, ECharts' entry animation, which
 * runs on its canvas out of reach of `getAnimations` (1 s by default).
 */
export async function settle(page: Page): Promise<void> {
  await page.waitForFunction(() =>
    document
      .getAnimations()
      .every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().endTime === Infinity),
  );
  if (await page.locator('canvas').filter({ visible: true }).count()) await page.waitForTimeout(1_000);
}

export async function shot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  // a page the flow scrolled (a click on a tab lower down) would be drawn with its fixed header and menu where the
  // scroll left them, in the middle of the page: a full-page picture starts at the top
  await page.evaluate(() => window.scrollTo(0, 0));
  try {
    await page.screenshot({ path: file, fullPage: true, timeout: 20_000 });
  } catch (error) {
    // a busy machine can starve the frame a full-page capture waits for (seen once on CI, beside live charts):
    // one more try with animations stopped, then the failure stands
    if (!/Timeout/i.test(String(error))) throw error;
    await page.screenshot({ path: file, fullPage: true, animations: 'disabled', timeout: 30_000 });
  }
  return file;
}

export async function query<T = Record<string, unknown>>(
  databaseUrl: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const c = new pg.Client(databaseUrl);
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}

/** The answer of the newest captcha the server drew (the one on screen: flows run one at a time). */
export async function latestCaptcha(databaseUrl: string): Promise<string> {
  const rows = await query<{ answer: string }>(
    databaseUrl,
    'SELECT answer FROM captchas ORDER BY expires_at DESC LIMIT 1',
  );
  if (!rows.length) throw new Error('no captcha drawn');
  return rows[0].answer;
}

/** The code of the newest SMS to a number, read from the `log` provider's outbox. */
export { lastSmsCode as smsCode } from '../apps/server/src/lib/sms.ts';

let seq = 0;
export const uniqueMobile = () => `137${String(Date.now()).slice(-6)}${String(++seq).padStart(2, '0')}`;
export const uniqueName = (p: string) => `${p}${Date.now().toString(36).slice(-5)}${++seq}`;
