import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '@cpc/contracts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, type Customer } from './device-helpers.ts';
import { createKey, nextOrigin, openCall } from './open-helpers.ts';

/**
 * Print jobs are device-linked data: a sub-account scoped to its department reads the jobs of its department's
 * printers only — list (with and without a device filter), detail with the receipt's content and preview, and
 * markup preview — and a job on another printer is not found, like another account's. App keys, their logs,
 * test prints, cancels and webhook deliveries act for the whole account: only a reader of the whole account
 * manages them.
 */
let h: Harness;
let A: Customer;
let ids: Map<string, number>;
const [INSIDE, OUTSIDE] = makeSpecs(2, { prefix: 'PSCOPE' }).map((s) => s.sn);
let scoped: string;
let keyId: number;
const jobs: Record<'inside' | 'outside', string> = { inside: '', outside: '' };
const SECRET_TEXT = 'Receipt for the South office only';

const get = (url: string, token: string) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });
const post = (url: string, token: string, payload: object) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload });

beforeAll(async () => {
  h = await createHarness();
  A = await customer(h);
  ids = await devicesOf(h, A.tenantId, makeSpecs(2, { prefix: 'PSCOPE' }));
  const dept = async (name: string) =>
    (await post('/system/department/add', A.token, { name, parentId: null })).body_.data.id as number;
  const north = await dept('North');
  const south = await dept('South');
  await post('/device/edit', A.token, { id: ids.get(INSIDE), departmentId: north });
  await post('/device/edit', A.token, { id: ids.get(OUTSIDE), departmentId: south });
  const role = await post('/system/role/create', A.token, {
    name: 'Print desk',
    code: `pd_${randomUUID().slice(0, 6)}`,
    dataScope: 'department',
    permissions: [PERMISSIONS.printView, PERMISSIONS.integrationManage, PERMISSIONS.deviceView],
  });
  expect(role.statusCode, role.body).toBe(200);
  const username = `ps_${randomUUID().slice(0, 8)}`;
  const made = await post('/system/subAccount/create', A.token, {
    username,
    password: 'Sub0Passw0rd',
    confirmPassword: 'Sub0Passw0rd',
    roleIds: [role.body_.data.id],
    departmentId: north,
  });
  expect(made.statusCode, made.body).toBe(200);
  scoped = (await h.login(username, 'Sub0Passw0rd')).token;
  const k = await createKey(h, A.token);
  keyId = k.id;
  for (const [which, sn] of [
    ['inside', INSIDE],
    ['outside', OUTSIDE],
  ] as const) {
    const res = await openCall(h, k, {
      url: '/print',
      body: { deviceSn: sn, content: `${SECRET_TEXT} (${sn})`, originId: nextOrigin() },
    });
    expect(res.statusCode, res.body).toBe(200);
    jobs[which] = res.body_.data.id;
  }
});
afterAll(() => h?.close());

describe('print jobs follow the data scope', () => {
  it('lists only the jobs of printers in scope; a filter naming another printer is not found', async () => {
    const all = await get('/integration/job/list?pageSize=100', A.token);
    expect(all.body_.data.total).toBe(2);
    const mine = await get('/integration/job/list?pageSize=100', scoped);
    expect(mine.statusCode, mine.body).toBe(200);
    expect(mine.body_.data).toMatchObject({ total: 1, list: [{ id: jobs.inside, deviceSn: INSIDE }] });
    expect(mine.body).not.toContain(OUTSIDE);
    const filtered = await get(`/integration/job/list?deviceId=${ids.get(OUTSIDE)}`, scoped);
    expect(filtered.statusCode).toBe(404);
    expect(filtered.body).not.toContain(OUTSIDE);
    const own = await get(`/integration/job/list?deviceId=${ids.get(INSIDE)}`, scoped);
    expect(own.body_.data.total).toBe(1);
  });

  it("reads a job in scope; another printer's job is not found and cannot be canceled", async () => {
    const detail = await get(`/integration/job/${jobs.inside}`, scoped);
    expect(detail.statusCode).toBe(200);
    expect(detail.body_.data.content).toContain(SECRET_TEXT);
    const other = await get(`/integration/job/${jobs.outside}`, scoped);
    expect(other.statusCode).toBe(404);
    expect(other.body).not.toContain(SECRET_TEXT);
    const before = await h.db
      .selectFrom('print_jobs')
      .select('state')
      .where('id', '=', jobs.outside)
      .executeTakeFirst();
    // canceling is managing the account's integration: not for a reader narrower than the account
    const cancel = await post(`/integration/job/${jobs.outside}/cancel`, scoped, {});
    expect(cancel.statusCode).toBe(403);
    expect((await post(`/integration/job/${jobs.inside}/cancel`, scoped, {})).statusCode).toBe(403);
    const after = await h.db.selectFrom('print_jobs').select('state').where('id', '=', jobs.outside).executeTakeFirst();
    expect(after).toEqual(before);
  });

  it('markup preview takes only printers in scope', async () => {
    const preview = await post('/integration/markup/preview', scoped, { content: 'x', deviceId: ids.get(OUTSIDE) });
    expect(preview.statusCode).toBe(404);
    const inside = await post('/integration/markup/preview', scoped, { content: 'x', deviceId: ids.get(INSIDE) });
    expect(inside.statusCode).toBe(200);
  });

  it('app keys act for the whole account: only a reader of the whole account manages them', async () => {
    for (const [method, url, body] of [
      ['GET', '/integration/key/list', undefined],
      ['GET', `/integration/key/${keyId}/requests`, undefined],
      ['POST', '/integration/key/create', { name: 'mine' }],
      ['POST', '/integration/testPrint', { keyId, deviceId: ids.get(INSIDE) }],
      ['GET', '/integration/webhook/list', undefined],
    ] as const) {
      const res = await h.call({ method, url: `/apiAdmin${url}`, token: scoped, ...(body ? { payload: body } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.body_.msg).toContain('whole account');
      expect(res.body).not.toContain(OUTSIDE);
    }
    expect((await get('/integration/key/list', A.token)).statusCode).toBe(200);
  });
});
