import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launch, newPage, server } from './browser.ts';
import { expectHash, login, registerThroughUi } from './flows.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

// SPEC §7: with a public key the console encrypts its payloads; both schemes, end to end through the browser.
describe.each(['legacy', 'modern'] as const)('payload encryption: %s', (scheme) => {
  it('registers and logs in with every body and answer encrypted on the wire', async () => {
    const s = server(scheme);
    const { context, page, errors } = await newPage(browser, { lang: 'en' });
    const wire: Array<{
      url: string;
      method: string;
      sent: string | null;
      header: string | undefined;
      answer: string;
    }> = [];
    page.on('requestfinished', async (req) => {
      if (!req.url().includes('/apiAdmin/') || req.url().includes('/objects/')) return;
      try {
        const res = await req.response();
        wire.push({
          url: req.url(),
          method: req.method(),
          sent: req.postData(),
          header: req.headers()['x-payload-crypto'],
          answer: res ? (await res.body()).toString('utf8') : '',
        });
      } catch {
        // a call the console made as the test closed its page (a count read again after a live event): not recorded
      }
    });
    const pk = await (await fetch(`${s.url}/apiAdmin/publicKey`)).json();
    expect(pk.data).toMatchObject({
      scheme,
      mockServer: false,
      publicKey: expect.stringContaining('BEGIN PUBLIC KEY'),
    });

    const account = await registerThroughUi(page, s);
    await page
      .getByText(account.username)
      .first()
      .waitFor({ timeout: 10_000 })
      .catch(() => {});

    const register = wire.find((w) => w.url.endsWith('/apiAdmin/register'))!;
    expect(register.header).toBe(scheme);
    expect(register.sent).not.toContain(account.password);
    expect(register.sent).not.toContain(account.mobile);
    expect(JSON.parse(register.sent!)).toEqual({ payload: expect.any(String) });
    expect(JSON.parse(register.answer)).toEqual({ payload: expect.any(String) });

    const sms = wire.find((w) => w.url.endsWith('/apiAdmin/sms/send'))!;
    expect(sms.sent).not.toContain(account.mobile);

    const info = wire.find((w) => w.url.includes('/user/v1/user/authenticate') && w.method === 'GET');
    expect(info?.header).toBe(scheme);
    expect(JSON.parse(info!.answer)).toEqual({ payload: expect.any(String) });

    // "Login RSA is off": the login call itself travels in clear, everything after it is encrypted.
    // A fresh browser session: the in-memory session of the old page would otherwise still be there.
    await context.clearCookies();
    await page.evaluate(() => sessionStorage.clear());
    await page.reload();
    await login(page, s, 'admin', s.adminPassword);
    await expectHash(page, /^#\/device\/index/);
    const menu = wire.find((w) => w.url.includes('/admin/login/getMenu'))!;
    expect(menu.header).toBe(scheme);
    expect(menu.answer).not.toContain('Device');
    await page
      .getByText(/my devices/i)
      .first()
      .waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
