/**
 * The console shell benchmark (issue 3): what the first screens download and how fast a kept-alive tab
 * comes back, each figure beside a reference measured in the same run. Not a test: it prints a table.
 *
 *   node --import tsx bench/shell.ts        (npm run bench:shell)
 *
 * See bench/README.md for what each row means and the environment variables.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import pg from 'pg';
import { chromium, type Browser, type Page, type Request } from 'playwright-core';
import { build } from 'vite';
import { startServer, type Running } from '../apps/server/src/server.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const WEB_DIST = path.resolve(process.env.BENCH_WEB_DIST ?? path.join(ROOT, 'apps/web/dist'));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SWITCHES = Math.max(4, Number(process.env.BENCH_SWITCHES ?? 30));
const ADMIN_PASSWORD = 'BenchAdmin123';
const BUDGET = { loginKiB: 180, lazyPageKiB: 100, tabSwitchMs: 50, rowsOverLcp: 2, firstPageRequests: 30 };
/** CPU throttling rates the first screens are timed at (CDP `Emulation.setCPUThrottlingRate`; 1 = none). */
const CPU_RATES = (process.env.BENCH_CPU_RATES ?? '1,4')
  .split(',')
  .map(Number)
  .filter((r) => r >= 1);
/** Delay between key presses when the first screens' run signs in. */
const TYPING_MS = 80;
/** Devices seeded into the admin's tenant, so the first page has rows to paint. */
const SEEDED_DEVICES = 20;
const DEVICE_PATH = '/device/index';
/** The performance mark the console sets when the sign-in page starts loading the signed-in area ahead. */
const WARM_MARK = 'cpc:warm-signed-in';
const IDENTITY_PATH = '/system/identity';

const kib = (bytes: number) => bytes / 1024;
const gzipSize = (body: Buffer) => zlib.gzipSync(body, { level: zlib.constants.Z_BEST_COMPRESSION }).length;

// ---------------------------------------------------------------------------------------------------------------
// what a page downloads

interface Asset {
  url: string;
  file: string;
  /** Decoded size. */
  bytes: number;
  /** gzip -9 of the decoded body: the unit of the budgets, whatever encoding the server chose. */
  gzip: number;
  /** Body bytes as they came over the wire. */
  wire: number;
  /** When the request was sent (ms since the epoch). */
  requested: number;
  encoding: string;
}

/**
 * Playwright's `networkidle` is the page load's, reached once: after a navigation inside the page this waits for
 * no request on the wire for 500 ms (an event stream never ends: not counted), at most 15 s.
 */
function trackQuiet(page: Page) {
  let pending = 0;
  let lastActivity = Date.now();
  const counted = (request: Request) => request.resourceType() !== 'eventsource';
  const end = (request: Request) => {
    if (!counted(request)) return;
    pending--;
    lastActivity = Date.now();
  };
  page.on('request', (request) => {
    if (!counted(request)) return;
    pending++;
    lastActivity = Date.now();
  });
  page.on('requestfinished', end);
  page.on('requestfailed', end);
  return {
    async quiet(): Promise<void> {
      await page.waitForLoadState('networkidle');
      const until = Date.now() + 15_000;
      while ((pending > 0 || Date.now() - lastActivity < 500) && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 50));
    },
  };
}

/** Records every script and style sheet the page receives, once per URL. */
function recordAssets(page: Page) {
  const assets = new Map<string, Asset>();
  const reading: Promise<void>[] = [];
  const requested = new Map<string, number>();
  const network = trackQuiet(page);
  page.on('request', (request) => {
    if (!requested.has(request.url())) requested.set(request.url(), Date.now());
  });
  page.on('response', (response) => {
    const url = response.url();
    const type = response.request().resourceType();
    if (url.startsWith('data:') || !(type === 'script' || type === 'stylesheet' || /\.(m?js|css)(\?|$)/.test(url)))
      return;
    reading.push(
      (async () => {
        const body = await response.body().catch(() => Buffer.alloc(0));
        const sizes = await response
          .request()
          .sizes()
          .catch(() => ({ responseBodySize: body.length }));
        if (assets.has(url)) return;
        assets.set(url, {
          url,
          file: path.basename(new URL(url).pathname),
          bytes: body.length,
          gzip: gzipSize(body),
          wire: sizes.responseBodySize,
          requested: requested.get(url) ?? Date.now(),
          encoding: response.headers()['content-encoding'] ?? 'identity',
        });
      })(),
    );
  });
  return {
    assets,
    /** Waits until the network has been quiet and every body has been read. */
    async settle(): Promise<Asset[]> {
      await network.quiet();
      await Promise.all(reading);
      return [...assets.values()];
    },
  };
}

const sum = (assets: Asset[], key: 'gzip' | 'wire' | 'bytes') => assets.reduce((total, a) => total + a[key], 0);

// ---------------------------------------------------------------------------------------------------------------
// the reference page: React + ReactDOM and nothing else, built and served the same way

async function measureReactReference(browser: Browser): Promise<Asset[]> {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-bench-react-'));
  await build({
    configFile: false,
    root: path.join(import.meta.dirname, 'reference'),
    base: './',
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true },
  });
  const server = http.createServer((req, res) => {
    const name = new URL(req.url ?? '/', 'http://x').pathname;
    const file = path.join(outDir, name === '/' ? 'index.html' : name);
    if (!file.startsWith(outDir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end();
      return;
    }
    const type = file.endsWith('.js') ? 'text/javascript' : file.endsWith('.css') ? 'text/css' : 'text/html';
    res.writeHead(200, { 'content-type': type }).end(fs.readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    const recorder = recordAssets(page);
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.getByText('React + ReactDOM').waitFor();
    const assets = await recorder.settle();
    await context.close();
    return assets;
  } finally {
    server.close();
    fs.rmSync(outDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// the console

async function latestCaptcha(databaseUrl: string): Promise<string> {
  const client = new pg.Client(databaseUrl);
  await client.connect();
  try {
    const { rows } = await client.query<{ answer: string }>(
      'SELECT answer FROM captchas ORDER BY expires_at DESC LIMIT 1',
    );
    if (!rows.length) throw new Error('the login page drew no captcha');
    return rows[0].answer;
  } finally {
    await client.end();
  }
}

const pageWrapper = (p: string) => `[data-page-path="${p}"]`;

/** The page of `path` is on screen: its keep-alive wrapper when there is one, else just the location. */
async function waitForPage(page: Page, pagePath: string): Promise<void> {
  await page.waitForFunction((p) => location.hash.startsWith(`#${p}`), pagePath, { timeout: 30_000 });
  const wrapper = page.locator(pageWrapper(pagePath));
  await wrapper
    .first()
    .waitFor({ state: 'visible', timeout: 15_000 })
    .catch(() => undefined);
}

interface ConsoleFigures {
  login: Asset[];
  /** Loaded on the sign-in page ahead of the signed-in area (part of `device`). */
  warmed: Asset[];
  device: Asset[];
  identity: Asset[];
  tabs: { switches: number[]; noop: number[] } | null;
}

async function measureConsole(browser: Browser, running: Running): Promise<ConsoleFigures> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 860 }, locale: 'zh-CN' });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const recorder = recordAssets(page);

  await page.goto(`${running.url}/#/login`);
  await page.locator('#username').waitFor();
  const onLoginPage = await recorder.settle();
  // what the sign-in page loads for itself, and what it loads ahead for the signed-in area (apps/web/src/app/warm-up.ts)
  const warmedAt = await page.evaluate((name) => {
    const mark = performance.getEntriesByName(name)[0];
    return mark ? performance.timeOrigin + mark.startTime : Number.POSITIVE_INFINITY;
  }, WARM_MARK);
  const login = onLoginPage.filter((a) => a.requested < warmedAt);
  const warmed = onLoginPage.filter((a) => a.requested >= warmedAt);
  const seen = new Set(login.map((a) => a.url));

  await page.fill('#username', 'admin');
  await page.fill('#password', ADMIN_PASSWORD);
  if (await page.locator('#captcha').count()) {
    await page.locator('img[src^="data:image/svg+xml"]').first().waitFor();
    await page.fill('#captcha', await latestCaptcha(running.databaseUrl));
  }
  await page.locator('form button[type=submit]').click();
  await waitForPage(page, DEVICE_PATH);
  const device = (await recorder.settle()).filter((a) => !seen.has(a.url) && !warmed.includes(a));
  device.unshift(...warmed);
  for (const a of device) seen.add(a.url);

  await page.evaluate((p) => (location.hash = `#${p}`), IDENTITY_PATH);
  await waitForPage(page, IDENTITY_PATH);
  const identity = (await recorder.settle()).filter((a) => !seen.has(a.url));

  const tabs = await measureTabSwitches(page);
  if (errors.length) console.warn(`page errors during the run:\n  ${errors.join('\n  ')}`);
  await context.close();
  return { login, warmed, device, identity, tabs };
}

interface FirstScreens {
  rate: number;
  /** The sign-in page's largest contentful paint, ms from its navigation start. */
  loginLcp: number;
  /** From the click on "sign in" until the first device rows are painted. */
  rowsPainted: number;
  /** Every request of the tab from the sign-in page's navigation until the first page's rows are painted and the network is idle. */
  total: RequestTally;
  /** Those made after the click on "sign in". */
  afterLogin: RequestTally;
}

interface RequestTally {
  requests: number;
  scripts: number;
  /** Bytes transferred: headers and bodies as they came over the wire. */
  transferred: number;
}

/**
 * The sign-in page's LCP and the first signed-in page's rows, timed in the same fresh tab (empty cache), with
 * the CPU throttled `rate` times; and what the tab requested on the way.
 */
async function measureFirstScreens(browser: Browser, running: Running, rate: number): Promise<FirstScreens> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 860 }, locale: 'zh-CN' });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  let loggingIn = false;
  const requests: {
    url: string;
    type: string;
    afterLogin: boolean;
    script: boolean;
    at: number;
    size: Promise<number>;
  }[] = [];
  page.on('request', (request) => {
    const script = request.resourceType() === 'script';
    let resolve!: (n: number) => void;
    const size = new Promise<number>((r) => (resolve = r));
    requests.push({
      url: request.url(),
      type: request.resourceType(),
      afterLogin: loggingIn,
      script,
      at: Date.now(),
      size,
    });
    const done = () =>
      void request
        .sizes()
        .then((s) =>
          resolve(
            (Number.isFinite(s.responseHeadersSize) ? Math.max(0, s.responseHeadersSize) : 0) +
              (Number.isFinite(s.responseBodySize) ? Math.max(0, s.responseBodySize) : 0),
          ),
        )
        .catch(() => resolve(0));
    request
      .response()
      .then((response) => (response ? response.finished().then(done, done) : resolve(0)))
      .catch(() => resolve(0));
  });
  // tsx keeps function names with a `__name` helper that does not exist in the page
  await page.addInitScript('globalThis.__name ??= (fn) => fn');
  const network = trackQuiet(page);

  await page.goto(`${running.url}/#/login`);
  await page.locator('#username').waitFor();
  await network.quiet();
  const loginLcp = await page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        new PerformanceObserver((list) => {
          const entries = list.getEntries();
          resolve(entries[entries.length - 1].startTime);
        }).observe({ type: 'largest-contentful-paint', buffered: true });
        setTimeout(() => resolve(Number.NaN), 5000);
      }),
  );

  // typed as a quick typist does (80 ms a key): what the page does meanwhile is part of the figures
  await page.locator('#username').pressSequentially('admin', { delay: TYPING_MS });
  await page.locator('#password').pressSequentially(ADMIN_PASSWORD, { delay: TYPING_MS });
  if (await page.locator('#captcha').count()) {
    await page.locator('img[src^="data:image/svg+xml"]').first().waitFor();
    await page.locator('#captcha').pressSequentially(await latestCaptcha(running.databaseUrl), { delay: TYPING_MS });
  }
  // the watch starts in the page at the click: rows of the device table, then the frame that paints them
  await page.evaluate(
    (selector) => {
      const w = window as unknown as { __rowsPainted: Promise<number> };
      const button = document.querySelector<HTMLElement>('form button[type=submit]')!;
      w.__rowsPainted = new Promise<number>((resolve) => {
        button.addEventListener(
          'click',
          () => {
            const start = performance.now();
            const painted = () => requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - start), 0));
            const observer = new MutationObserver(() => {
              if (!document.querySelector(selector)) return;
              observer.disconnect();
              painted();
            });
            observer.observe(document.body, { subtree: true, childList: true });
          },
          { capture: true, once: true },
        );
      });
    },
    `${pageWrapper(DEVICE_PATH)} .ant-table-row`,
  );
  loggingIn = true;
  const clickedAt = Date.now();
  await page.locator('form button[type=submit]').click();
  const rowsPainted = await page.evaluate(
    () => (window as unknown as { __rowsPainted: Promise<number> }).__rowsPainted,
  );
  await network.quiet();
  const sizes = await Promise.all(
    requests.map((r) => Promise.race([r.size, new Promise<number>((resolve) => setTimeout(() => resolve(0), 2000))])),
  );
  const tally = (which: (i: number) => boolean): RequestTally => {
    const picked = requests.map((r, i) => ({ ...r, bytes: sizes[i] })).filter((_, i) => which(i));
    return {
      requests: picked.length,
      scripts: picked.filter((r) => r.script).length,
      transferred: picked.reduce((t, r) => t + (Number.isFinite(r.bytes) ? r.bytes : 0), 0),
    };
  };
  if (process.env.BENCH_LIST_REQUESTS) {
    console.log(`requests of the first screens at CPU ${rate}×:`);
    for (const [i, r] of requests.entries()) {
      const at = `${r.at - clickedAt >= 0 ? '+' : ''}${r.at - clickedAt} ms`;
      console.log(
        `  ${r.afterLogin ? 'after' : 'login'}  ${at.padStart(9)}  ${r.type.padEnd(10)} ${(sizes[i] / 1024).toFixed(1).padStart(6)} KiB  ${r.url.replace(running.url, '').slice(0, 90)}`,
      );
    }
  }
  await context.close();
  return { rate, loginLcp, rowsPainted, total: tally(() => true), afterLogin: tally((i) => requests[i].afterLogin) };
}

/** Devices for the admin's own tenant: the first page draws rows, as a customer's does. */
async function seedDevices(databaseUrl: string): Promise<void> {
  const client = new pg.Client(databaseUrl);
  await client.connect();
  try {
    await client.query(
      `INSERT INTO device_models (code, name, kind, paper_width_mm) VALUES ('BENCH58', 'Bench printer 58', 'printer', 58) ON CONFLICT (code) DO NOTHING`,
    );
    await client.query(
      `INSERT INTO devices (sn, tenant_id, model_id, bind_key_hash, secret, bound_at, name, status, last_seen_at, battery, signal)
       SELECT 'BENCH' || lpad(n::text, 6, '0'), u.tenant_id, m.id, md5(n::text), md5(n::text || 's'), now(), 'Printer ' || n,
              CASE WHEN n % 3 = 0 THEN 'offline' ELSE 'online' END, now() - n * interval '1 minute', 50 + n, 60 + n
       FROM generate_series(1, $1::int) n, (SELECT tenant_id FROM users WHERE username = 'admin') u, (SELECT id FROM device_models WHERE code = 'BENCH58') m
       ON CONFLICT (sn) DO NOTHING`,
      [SEEDED_DEVICES],
    );
  } finally {
    await client.end();
  }
}

/**
 * Click → the other kept-alive page visible → one animation frame, measured in the page. The reference is
 * a click on the tab already active (the same element, handlers and frame, but nothing to switch).
 */
async function measureTabSwitches(page: Page): Promise<ConsoleFigures['tabs']> {
  const available = await page.evaluate(
    ([a, b]) =>
      !!document.querySelector(`[data-tab-path="${a}"]`) &&
      !!document.querySelector(`[data-tab-path="${b}"]`) &&
      !!document.querySelector(`[data-page-path="${b}"]`),
    [DEVICE_PATH, IDENTITY_PATH],
  );
  if (!available) return null;

  // tsx keeps function names with a `__name` helper that does not exist in the page
  await page.evaluate('globalThis.__name ??= (fn) => fn');
  return page.evaluate(
    async ({ a, b, rounds }) => {
      const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
      // as Playwright's `visible`: not inside `display: none` nor skipped content (`content-visibility`), and laid out
      const shown = (p: string) => {
        const el = document.querySelector(`[data-page-path="${p}"]`);
        return !!el && el.checkVisibility() && el.getClientRects().length > 0;
      };
      // Looked at once a frame, where the browser lays the page out anyway. (Looking at every DOM change, as this
      // did, forced a layout per change: in a CPU profile of 60 switches, 250 ms were the measuring itself.)
      const frameShown = async (p: string) => {
        do await frame();
        while (!shown(p));
      };
      const tab = (p: string) => document.querySelector<HTMLElement>(`[data-tab-path="${p}"]`)!;

      const switchTo = async (p: string) => {
        const start = performance.now();
        tab(p).click();
        await frameShown(p);
        return performance.now() - start;
      };
      const noop = async (p: string) => {
        const start = performance.now();
        tab(p).click();
        await frame();
        return performance.now() - start;
      };

      const switches: number[] = [];
      const noops: number[] = [];
      // warm-up: the first visit of each direction may still load code
      await switchTo(a);
      await switchTo(b);
      for (let i = 0; i < rounds; i++) {
        const target = i % 2 === 0 ? a : b;
        switches.push(await switchTo(target));
        noops.push(await noop(target));
        await frame();
      }
      return { switches, noop: noops };
    },
    { a: DEVICE_PATH, b: IDENTITY_PATH, rounds: SWITCHES },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// the built files themselves

/** The largest script that the login page does not load (a lazy page or something it shares). */
function largestLazyChunk(loginFiles: Set<string>): { file: string; gzip: number } {
  const dir = path.join(WEB_DIST, 'assets');
  let largest = { file: '-', gzip: 0 };
  for (const file of fs.readdirSync(dir)) {
    if (!file.endsWith('.js') || loginFiles.has(file)) continue;
    const size = gzipSize(fs.readFileSync(path.join(dir, file)));
    if (size > largest.gzip) largest = { file, gzip: size };
  }
  return largest;
}

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

interface PageCost {
  page: string;
  /** What opening the page downloads beyond the sign-in page and the signed-in shell (its static imports). */
  gzip: number;
  files: number;
  /** What the page loads after it is on screen (its own dynamic imports, e.g. the chart library). */
  laterGzip: number;
}

/**
 * Each lazy page's own cost, from the build's manifest (dist/.vite/manifest.json): the scripts and styles its
 * module pulls in statically, minus those of the first load (index.html's entry), the console's providers and
 * the signed-in shell, which every page after the first finds already there.
 */
function pageCosts(): { shell: number; pages: PageCost[] } | null {
  const file = path.join(WEB_DIST, '.vite', 'manifest.json');
  if (!fs.existsSync(file)) return null;
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, ManifestChunk>;
  const sizes = new Map<string, number>();
  const sizeOf = (f: string) => {
    if (!sizes.has(f)) sizes.set(f, gzipSize(fs.readFileSync(path.join(WEB_DIST, f))));
    return sizes.get(f)!;
  };
  let known = new Set<string>();
  const closure = (keys: string[], follow: 'imports' | 'dynamicImports' = 'imports', into = new Set<string>()) => {
    const seen = new Set<string>();
    const walk = (key: string) => {
      if (seen.has(key) || !manifest[key]) return;
      seen.add(key);
      const chunk = manifest[key];
      into.add(chunk.file);
      for (const css of chunk.css ?? []) into.add(css);
      for (const next of chunk.imports ?? []) walk(next);
    };
    if (follow === 'imports') for (const key of keys) walk(key);
    else {
      // what any module of the page (or of what it imports) loads later on
      const statics = new Set<string>();
      // the page's own modules: the shared ones' lazy parts (other languages, antd's message) are not the page's
      const gather = (key: string) => {
        if (statics.has(key) || !manifest[key] || known.has(manifest[key].file)) return;
        statics.add(key);
        for (const next of manifest[key].imports ?? []) gather(next);
      };
      for (const key of keys) gather(key);
      for (const key of statics) for (const dyn of manifest[key]?.dynamicImports ?? []) walk(dyn);
    }
    return into;
  };
  const entry = Object.keys(manifest).filter((k) => manifest[k].isEntry);
  // a build that groups the first screens' modules (apps/web/vite.config.ts) names the chunks instead of the modules
  const shellKeys = Object.keys(manifest).filter(
    (k) =>
      /src\/app\/(console-layout|authenticated-area|feedback-holders)\.tsx$/.test(k) ||
      /^_(shell|antd|query)-[\w-]{8}\.js$/.test(k),
  );
  const groupedPages: Record<string, string> = {
    'device-list': 'device/routes/device-list',
    login: 'auth/routes/login',
  };
  const firstLoad = closure(entry);
  const shell = closure(shellKeys);
  for (const f of firstLoad) shell.delete(f);
  known = new Set([...firstLoad, ...shell]);
  const pages: PageCost[] = [];
  const pageName = (key: string) => {
    if (/src\/features\/[^/]+\/routes\/[^/]+\.tsx$/.test(key) && manifest[key].isDynamicEntry)
      return key.replace(/^.*src\/features\//, '').replace(/\.tsx$/, '');
    const group = /^_(.+)-[\w-]{8}\.js$/.exec(key)?.[1];
    return group &&
      groupedPages[group] &&
      !Object.keys(manifest).some((k) => k.endsWith(`src/features/${groupedPages[group]}.tsx`))
      ? groupedPages[group]
      : null;
  };
  for (const key of Object.keys(manifest).filter((k) => pageName(k))) {
    const own = [...closure([key])].filter((f) => !known.has(f));
    const later = [...closure([key], 'dynamicImports')].filter((f) => !known.has(f) && !own.includes(f));
    pages.push({
      page: pageName(key)!,
      gzip: own.reduce((t, f) => t + sizeOf(f), 0),
      files: own.length,
      laterGzip: later.reduce((t, f) => t + sizeOf(f), 0),
    });
  }
  return { shell: [...shell].reduce((t, f) => t + sizeOf(f), 0), pages: pages.sort((a, b) => b.gzip - a.gzip) };
}

/** Scripts of the build that contain zod (the console needs only zod-free parts of the contracts). */
function filesWithZod(): string[] {
  const dir = path.join(WEB_DIST, 'assets');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.js') && fs.readFileSync(path.join(dir, f), 'utf8').includes('ZodError'));
}

// ---------------------------------------------------------------------------------------------------------------
// report

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
};

type Row = [metric: string, value: string, reference: string, ratio: string, budget: string];

function printTable(rows: Row[]): void {
  const head: Row = ['metric', 'value', 'reference (same run)', 'ratio', 'budget'];
  const widths = head.map((_, i) => Math.max(...[head, ...rows].map((r) => r[i].length)));
  const line = (r: Row) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

const mark = (ok: boolean) => (ok ? 'PASS' : 'OVER');

function printFirstScreens(firstScreens: FirstScreens[]): void {
  console.log(
    `\nsign-in page → first signed-in page (${DEVICE_PATH} through the form, fresh tab, ${SEEDED_DEVICES} devices), same run:`,
  );
  const firstRows: Row[] = [];
  for (const f of firstScreens) {
    const cpu = f.rate === 1 ? 'CPU 1×' : `CPU ${f.rate}× throttled`;
    const over = f.rowsPainted / f.loginLcp;
    firstRows.push(
      [`${cpu}: sign-in page LCP`, `${f.loginLcp.toFixed(0)} ms`, '-', '-', '-'],
      [
        `${cpu}: sign in → device rows painted`,
        `${f.rowsPainted.toFixed(0)} ms`,
        `sign-in LCP ${f.loginLcp.toFixed(0)} ms`,
        `${over.toFixed(2)}×`,
        `≤ ${BUDGET.rowsOverLcp}× ${mark(over <= BUDGET.rowsOverLcp)}`,
      ],
      [
        `${cpu}: requests, sign-in page + first page`,
        `${f.total.requests} req (${f.total.scripts} scripts), ${kib(f.total.transferred).toFixed(1)} KiB transferred`,
        `after the click: ${f.afterLogin.requests} req (${f.afterLogin.scripts} scripts), ${kib(f.afterLogin.transferred).toFixed(1)} KiB`,
        '-',
        `≤ ${BUDGET.firstPageRequests} req ${mark(f.total.requests <= BUDGET.firstPageRequests)}`,
      ],
    );
  }
  printTable(firstRows);
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(WEB_DIST, 'index.html'))) {
    if (process.env.BENCH_WEB_DIST) throw new Error(`BENCH_WEB_DIST has no index.html: ${WEB_DIST}`);
    console.log('apps/web/dist is missing: building the console…');
    const r = spawnSync('npm', ['run', 'build', '-w', 'apps/web'], { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (set CHROMIUM_PATH)`);

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-bench-'));
  const running = await startServer({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: process.env.DATABASE_URL,
    ADMIN_PASSWORD,
    CAPTCHA_PROVIDER: 'svg',
    PAYLOAD_CRYPTO: 'off',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
    WEB_DIST,
    NODE_ENV: 'test',
  });
  const browser = await chromium.launch({
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

  try {
    await seedDevices(running.databaseUrl);
    if (process.env.BENCH_FIRST_SCREENS_ONLY) {
      // a quicker run while working on the first screens: their table only
      for (const rate of CPU_RATES) printFirstScreens([await measureFirstScreens(browser, running, rate)]);
      return;
    }
    const reference = await measureReactReference(browser);
    const figures = await measureConsole(browser, running);
    const firstScreens: FirstScreens[] = [];
    for (const rate of CPU_RATES) firstScreens.push(await measureFirstScreens(browser, running, rate));
    const loginFiles = new Set(figures.login.map((a) => a.file));
    const lazy = largestLazyChunk(loginFiles);
    const zod = filesWithZod();

    const refKiB = kib(sum(reference, 'gzip'));
    const ratio = (kibValue: number) => `${(kibValue / refKiB).toFixed(1)}×`;
    const loginKiB = kib(sum(figures.login, 'gzip'));
    const deviceKiB = kib(sum(figures.device, 'gzip'));
    const identityKiB = kib(sum(figures.identity, 'gzip'));
    const refText = `${refKiB.toFixed(1)} KiB, ${reference.length} req (React+ReactDOM page)`;

    const rows: Row[] = [
      [
        'login first load (/#/login), JS+CSS gzip',
        `${loginKiB.toFixed(1)} KiB, ${figures.login.length} req`,
        refText,
        ratio(loginKiB),
        `≤ ${BUDGET.loginKiB} KiB ${mark(loginKiB <= BUDGET.loginKiB)}`,
      ],
      // the shell and the first page together: each page's own share is listed below the table
      [
        '/#/device/index after login: added',
        `${deviceKiB.toFixed(1)} KiB, ${figures.device.length} req (${figures.warmed.length} of them loaded ahead on the sign-in page)`,
        refText,
        ratio(deviceKiB),
        '- (shell + page)',
      ],
      [
        '/#/device/index after login: total',
        `${(loginKiB + deviceKiB).toFixed(1)} KiB, ${figures.login.length + figures.device.length} req`,
        refText,
        ratio(loginKiB + deviceKiB),
        '-',
      ],
      [
        `${IDENTITY_PATH} opened next: added`,
        `${identityKiB.toFixed(1)} KiB, ${figures.identity.length} req`,
        refText,
        ratio(identityKiB),
        `≤ ${BUDGET.lazyPageKiB} KiB ${mark(identityKiB <= BUDGET.lazyPageKiB)}`,
      ],
      [
        'largest lazy chunk, gzip',
        `${kib(lazy.gzip).toFixed(1)} KiB (${lazy.file})`,
        refText,
        ratio(kib(lazy.gzip)),
        '-',
      ],
    ];
    if (figures.tabs) {
      const { switches, noop } = figures.tabs;
      const [p50, p95, r50, r95] = [
        percentile(switches, 50),
        percentile(switches, 95),
        percentile(noop, 50),
        percentile(noop, 95),
      ];
      rows.push([
        `tab switch, ${switches.length} switches: p50 / p95`,
        `${p50.toFixed(1)} / ${p95.toFixed(1)} ms`,
        `${r50.toFixed(1)} / ${r95.toFixed(1)} ms (no-op click → rAF)`,
        `${(p50 / r50).toFixed(1)}× / ${(p95 / r95).toFixed(1)}×`,
        `p95 ≤ ${BUDGET.tabSwitchMs} ms ${mark(p95 <= BUDGET.tabSwitchMs)}`,
      ]);
    } else {
      rows.push(['tab switch', 'tabs not available', '-', '-', `p95 ≤ ${BUDGET.tabSwitchMs} ms (not measured)`]);
    }

    console.log(`\nConsole shell benchmark — ${WEB_DIST}\n`);
    printTable(rows);

    printFirstScreens(firstScreens);

    const wire = kib(sum(figures.login, 'wire'));
    const encodings = [...new Set(figures.login.filter((a) => a.bytes >= 1024).map((a) => a.encoding))].join(', ');
    console.log(
      `\nlogin first load over the wire: ${wire.toFixed(1)} KiB (${encodings}); decoded ${kib(sum(figures.login, 'bytes')).toFixed(1)} KiB`,
    );
    for (const [title, assets] of [
      ['login first load', figures.login],
      [`${DEVICE_PATH} after login`, figures.device],
    ] as const) {
      console.log(`largest parts of the ${title} (gzip):`);
      for (const a of [...assets].sort((x, y) => y.gzip - x.gzip).slice(0, 8)) {
        console.log(`  ${kib(a.gzip).toFixed(1).padStart(6)} KiB  ${a.file}`);
      }
    }
    console.log(`zod in the console's scripts: ${zod.length ? zod.join(', ') : 'none'}`);

    const costs = pageCosts();
    if (!costs)
      console.log('\nno dist/.vite/manifest.json: per-page costs not measured (build with apps/web/vite.config.ts)');
    else {
      console.log(
        `\nthe signed-in shell (antd's core, providers, layouts, menu, tabs, header tools), loaded once after the login: ${kib(costs.shell).toFixed(1)} KiB gzip`,
      );
      console.log(
        `each lazy page beyond the first load and the shell (gzip; budget ≤ ${BUDGET.lazyPageKiB} KiB), and what it loads once on screen:`,
      );
      for (const p of costs.pages) {
        const later = p.laterGzip ? `   then ${kib(p.laterGzip).toFixed(1)} KiB once on screen` : '';
        console.log(
          `  ${kib(p.gzip).toFixed(1).padStart(6)} KiB in ${String(p.files).padStart(2)} files  ${mark(kib(p.gzip) <= BUDGET.lazyPageKiB)}  ${p.page}${later}`,
        );
      }
    }
  } finally {
    await browser.close();
    await stopQuietly(running);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Stops the server; connections the database drops while it shuts down are expected, not a failure of the run. */
async function stopQuietly(running: Running): Promise<void> {
  const expected = (error: unknown) =>
    /terminating connection|has already been destroyed|Connection terminated/i.test(String(error));
  const ignore = (error: unknown) => {
    if (!expected(error)) throw error;
  };
  process.on('uncaughtException', ignore);
  try {
    await running.stop().catch(ignore);
    // background work of the server may still report a closed pool on its next tick
    await new Promise((resolve) => setTimeout(resolve, 200));
  } finally {
    process.off('uncaughtException', ignore);
  }
}

await main();
