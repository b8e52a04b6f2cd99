import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launch, newPage, query, server, shot } from './browser.ts';
import { FIXTURES, expectHash, login, registerThroughUi } from './flows.ts';

type Server = ReturnType<typeof server>;

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser?.close());

const ID_NUMBER = '11010519491231002X';

async function envelope<T>(res: Response): Promise<T> {
  const body = (await res.json()) as { code: number; msg: string; data: T };
  if (body.code !== 200) throw new Error(`${res.url}: ${body.code} ${body.msg}`);
  return body.data;
}

/** A login as a script would make it (the captcha answered from the database); the bearer header. */
async function apiLogin(s: Server, username: string, password: string): Promise<{ authorization: string }> {
  const captcha = await envelope<{ captchaId: string }>(await fetch(`${s.url}/apiAdmin/captcha`));
  const [{ answer }] = await query<{ answer: string }>(s.databaseUrl, 'SELECT answer FROM captchas WHERE id = $1', [
    captcha.captchaId,
  ]);
  const { token } = await envelope<{ token: string }>(
    await fetch(`${s.url}/apiAdmin/user/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password, captchaId: captcha.captchaId, captcha: answer }),
    }),
  );
  return { authorization: `Bearer ${token}` };
}

/** The identity submission as the customer's own client sends it: upload both sides, submit. */
async function submitIdentityByApi(s: Server, username: string, password: string): Promise<void> {
  const auth = await apiLogin(s, username, password);
  const keys: string[] = [];
  for (const side of ['front', 'back']) {
    const up = await envelope<{ token: string }>(
      await fetch(`${s.url}/apiAdmin/user/v1/user/getQnToken?bucket=permanentfile`, { headers: auth }),
    );
    const form = new FormData();
    form.append('token', up.token);
    form.append(
      'file',
      new Blob([readFileSync(path.join(FIXTURES, 'id-card.png'))], { type: 'image/png' }),
      `${side}.png`,
    );
    keys.push(
      (await envelope<{ key: string }>(await fetch(`${s.url}/apiAdmin/upload`, { method: 'POST', body: form }))).key,
    );
  }
  await envelope(
    await fetch(`${s.url}/apiAdmin/user/v1/user/authenticate`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'individual',
        realName: '王五',
        idNumber: ID_NUMBER,
        idFrontKey: keys[0],
        idBackKey: keys[1],
      }),
    }),
  );
}

describe('staff queues stay current', () => {
  it(
    'an open identity review shows a new submission without a reload, and drops it once another staff member decides',
    { timeout: 180_000 },
    async () => {
      const s = server('plain');
      const customer = await newPage(browser, { lang: 'zh' });
      const account = await registerThroughUi(customer.page, s);
      await customer.context.close();

      const staff = await newPage(browser, { lang: 'zh' });
      await login(staff.page, s, 'admin', s.adminPassword);
      await expectHash(staff.page, /^#\/device\/index/);
      await staff.page.goto(`${s.url}/#/system/identity`);
      await expectHash(staff.page, /^#\/system\/identity/);
      const list = staff.page.waitForResponse((r) => r.url().includes('/apiAdmin/system/identity/list'));
      await staff.page.locator('.ant-table').filter({ visible: true }).first().waitFor();
      await list;
      expect(await staff.page.locator('tr', { hasText: account.username }).count()).toBe(0);
      // the page listens before the customer submits
      await staff.page.waitForLoadState('networkidle');

      await submitIdentityByApi(s, account.username, account.password);
      const row = staff.page.locator('tr', { hasText: account.username });
      await row.waitFor({ timeout: 15_000 });
      await shot(staff.page, 'identity-review-live-zh');

      // another staff member (here: the API) approves it: it leaves this staff member's waiting list by itself
      const [{ id }] = await query<{ id: number }>(
        s.databaseUrl,
        `SELECT s.id FROM identity_submissions s JOIN users u ON u.id = s.user_id WHERE u.username = $1`,
        [account.username],
      );
      const other = await apiLogin(s, 'admin', s.adminPassword);
      await envelope(
        await fetch(`${s.url}/apiAdmin/system/identity/approve`, {
          method: 'POST',
          headers: { ...other, 'content-type': 'application/json' },
          body: JSON.stringify({ id: Number(id) }),
        }),
      );
      await row.waitFor({ state: 'detached', timeout: 15_000 });
      expect(staff.errors).toEqual([]);
      await staff.context.close();
    },
  );
});
