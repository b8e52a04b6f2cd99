import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startServer, type Running } from '../apps/server/src/server.ts';
import { startIdp, type TestIdp } from '../apps/server/test/oidc-idp.ts';
import { launch, newPage, server, settle, shot } from './browser.ts';
import { approveAccount, registerThroughUi, solveCaptcha, expectHash } from './flows.ts';
import { ADMIN_PASSWORD } from './global-setup.ts';

const WEB_DIST = process.env.E2E_WEB_DIST ?? path.resolve(import.meta.dirname, '../apps/web/dist');

/** A port free right now: the console's redirect URI must be known before the provider is made. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });

let browser: Browser;
let idp: TestIdp;
let running: Running;
let s: { url: string; databaseUrl: string; dataDir: string; adminPassword: string; mqttUrl: string };

/** A console of its own with a social-login provider: a real local OpenID provider (oidc-provider). */
beforeAll(async () => {
  browser = await launch();
  const base = new URL(server('plain').databaseUrl);
  const dbName = `e2e_social_${process.pid}`;
  const admin = new pg.Client(base.toString());
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName}`);
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  base.pathname = `/${dbName}`;
  const port = await freePort();
  // the console is reached at its PUBLIC_URL: the redirect URI is under it, and the provider sends the browser back
  // there, where the flow cookie set when it started is
  const publicUrl = `http://localhost:${port}`;
  idp = await startIdp([`${publicUrl}/callback`]);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-e2e-social-'));
  running = await startServer({
    PORT: String(port),
    PUBLIC_URL: publicUrl,
    MQTT_PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: base.toString(),
    ADMIN_PASSWORD,
    CAPTCHA_PROVIDER: 'svg',
    LOG_LEVEL: 'warn',
    WEB_DIST,
    NODE_ENV: 'test',
    RATE_LIMIT_CAPTCHA: '100000/60',
    RATE_LIMIT_SMS: '100000/60',
    RATE_LIMIT_REGISTER: '100000/60',
    RATE_LIMIT_NOT_FOUND: '100000/60',
    OIDC_PROVIDERS: 'corp',
    OIDC_CORP_ISSUER: idp.issuer,
    OIDC_CORP_CLIENT_ID: idp.clientId,
    OIDC_CORP_CLIENT_SECRET: idp.clientSecret,
    OIDC_CORP_NAME: 'Corp SSO',
  });
  s = { url: running.url, databaseUrl: base.toString(), dataDir, adminPassword: ADMIN_PASSWORD, mqttUrl: '' };
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await running?.stop().catch(() => {});
  await idp?.close();
});

/** From the login page through the provider's sign-in page back to the console's /callback. */
async function signInWithProvider(page: Page, button: RegExp) {
  await page.goto(`${s.url}/#/login`);
  await page.getByRole('button', { name: button }).click();
  await page.waitForURL((u) => u.href.startsWith(idp.issuer), { timeout: 15_000 });
  await page.locator('#idp-login').click();
  await page.waitForURL((u) => u.href.startsWith(s.url), { timeout: 15_000 });
}

describe('social login through a real OpenID provider', () => {
  it(
    'links a new identity with the account password, then signs in with the button directly',
    { timeout: 300_000 },
    async () => {
      // an account to link to, registered and approved
      const first = await newPage(browser, { lang: 'zh' });
      const account = await registerThroughUi(first.page, s, 'individual');
      await approveAccount(s, account.username);
      await first.context.close();
      idp.account = 'alice';

      // a fresh browser: the login page shows the provider's button
      const one = await newPage(browser, { lang: 'zh' });
      await one.page.goto(`${s.url}/#/login`);
      await one.page.getByRole('button', { name: '使用 Corp SSO 登录' }).waitFor();
      await shot(one.page, 'social-login-page');
      await signInWithProvider(one.page, /使用 Corp SSO 登录/);
      // unknown identity: the link form
      await expectHash(one.page, /^#\/callback/);
      await one.page.getByText('关联 Corp SSO 账号').waitFor({ timeout: 15_000 });
      await one.page.getByText('IdP alice').waitFor();
      await settle(one.page);
      await shot(one.page, 'social-link-form');
      await one.page.fill('#username', account.username);
      await one.page.fill('#password', account.password);
      await solveCaptcha(one.page, s);
      await one.page.locator('form button[type=submit]').click();
      await one.page.waitForFunction(() => !/^#\/(callback|login)/.test(location.hash), null, { timeout: 20_000 });
      expect(await one.page.evaluate(() => Object.keys(localStorage).length)).toBeGreaterThan(0);
      await one.context.close();

      // signed out (a new browser), the button signs in directly
      const two = await newPage(browser, { lang: 'en' });
      await signInWithProvider(two.page, /Sign in with Corp SSO/);
      await two.page.waitForFunction(() => !/^#\/(callback|login)/.test(location.hash), null, { timeout: 20_000 });
      expect(two.errors).toEqual([]);

      // the personal centre lists the link
      await two.page.goto(`${s.url}/#/person/info`);
      const card = two.page.locator('[data-testid="linked-accounts"]');
      await card.getByText('Linked accounts').waitFor({ timeout: 15_000 });
      await card.locator('[data-testid="linked-row"]', { hasText: 'Corp SSO' }).waitFor();
      await card.getByText('IdP alice · alice@idp.test').waitFor();
      await settle(two.page);
      await shot(two.page, 'social-linked-accounts');

      // remove the link (confirmed), then link it again from the personal centre: the callback links, not signs in
      await card.getByRole('button', { name: 'Remove' }).click();
      await two.page
        .locator('.ant-popconfirm')
        .getByRole('button', { name: /OK|Confirm|确定/ })
        .click();
      await card.getByText('No linked accounts yet').waitFor({ timeout: 15_000 });
      await card.getByRole('button', { name: /Link another/ }).click();
      await two.page.getByRole('menuitem', { name: 'Corp SSO' }).click();
      // the provider still has this browser signed in as alice: it answers at once
      await two.page.waitForURL((u) => u.href.startsWith(s.url) && u.hash.startsWith('#/person/info'), {
        timeout: 20_000,
      });
      await two.page
        .locator('[data-testid="linked-accounts"] [data-testid="linked-row"]', { hasText: 'Corp SSO' })
        .waitFor({ timeout: 15_000 });

      // at 375 px the link form fits
      const narrow = await newPage(browser, { lang: 'en', width: 375, height: 800 });
      idp.account = 'zoe';
      await signInWithProvider(narrow.page, /Sign in with Corp SSO/);
      await narrow.page.getByText('Link your Corp SSO account').waitFor({ timeout: 15_000 });
      await settle(narrow.page);
      expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await shot(narrow.page, 'social-link-form-375');
      await narrow.context.close();
      await two.context.close();
    },
  );

  it(
    "refuses a callback another browser started (login CSRF): the victim sees why, the attacker's identity is not linked",
    { timeout: 120_000 },
    async () => {
      // the attacker starts a flow outside the victim's browser and signs in at the provider as themself
      const started = await fetch(`${s.url}/apiAdmin/socialLogin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ provider: 'corp' }),
      });
      const { data } = (await started.json()) as { data: { url: string } };
      idp.account = 'mallory';
      const trap = await idp.authorize(data.url);
      expect(trap.searchParams.get('code')).toBeTruthy();

      // the victim opens the link the attacker sent
      const victim = await newPage(browser, { lang: 'en' });
      await victim.page.goto(trap.href);
      await expectHash(victim.page, /^#\/callback/);
      await victim.page
        .getByText('this sign-in was not started in this browser, please start it again here')
        .first()
        .waitFor({ timeout: 15_000 });
      await victim.page.getByRole('button', { name: 'Back to sign in' }).waitFor();
      await settle(victim.page);
      await shot(victim.page, 'social-callback-other-browser');
      expect(await victim.page.getByText('Link your Corp SSO account').count()).toBe(0);
      const linked = await running.db
        .selectFrom('user_identities')
        .select('id')
        .where('subject', '=', 'mallory')
        .execute();
      expect(linked).toEqual([]);
      await victim.context.close();
    },
  );
});
