import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SystemLogEntry } from '@cpc/contracts';
import { pruneSystemLog } from '../src/modules/system-log/index.ts';
import { ADMIN_PASSWORD, createHarness, registerCustomer, type Harness } from './harness.ts';

let h: Harness;
let staff: string;
beforeAll(async () => {
  h = await createHarness();
  staff = (await h.login('admin', ADMIN_PASSWORD)).token;
});
afterAll(() => h.close());

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const get = (url: string, token: string, headers: Record<string, string> = {}) =>
  h.call({ method: 'GET', url: `/apiAdmin${url}`, token, headers });
const post = (url: string, token: string, payload: unknown) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload: payload as Record<string, unknown> });
const list = async (token: string, query: Record<string, string | number> = {}) => {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  const res = await get(`/system/log/list?${qs}`, token);
  expect(res.statusCode, res.body).toBe(200);
  return res.body_.data as {
    list: SystemLogEntry[];
    next: string | null;
    total: number | null;
    totalKind: string | null;
  };
};
const uniq = () => Math.random().toString(36).slice(2, 8);

describe('what the system log records', () => {
  it('records sign-ins, success and failure, with the address and a device summary, never the password', async () => {
    const c = await registerCustomer(h);
    const wrong = 'Wr0ngPassw0rd!x';
    const bad = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/login',
      payload: { username: c.username, password: wrong },
      headers: { 'user-agent': CHROME },
    });
    expect(bad.statusCode).toBe(401);
    const good = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/login',
      payload: { username: c.username, password: c.password },
      headers: { 'user-agent': CHROME },
    });
    expect(good.statusCode).toBe(200);
    const token = good.body_.data.token as string;
    const logins = (await list(token, { action: 'login' })).list;
    expect(logins.map((e) => e.result).slice(0, 2)).toEqual(['ok', 'fail']);
    for (const e of logins.slice(0, 2)) {
      expect(e).toMatchObject({ userName: c.username, ip: '127.0.0.1', device: 'Chrome 120 · Windows' });
    }
    expect(logins[1].details).toMatchObject({ reason: 'wrong password' });
    // an unknown account's failure names the account that was tried (staff see it: it has no tenant)
    const nobody = `nobody_${uniq()}`;
    await h.call({ method: 'POST', url: '/apiAdmin/user/v1/login', payload: { username: nobody, password: wrong } });
    const unknown = (await list(staff, { action: 'login', result: 'fail' })).list.find((e) => e.userName === nobody);
    expect(unknown).toMatchObject({ tenantId: null, details: { reason: 'unknown account' } });

    await get('/logout', token);
    expect((await list(staff, { user: c.username, action: 'logout' })).list).toHaveLength(1);
  });

  it('records a profile edit, a password change (masked) and sub-accounts with their fields before → after', async () => {
    const c = await registerCustomer(h);
    expect((await post('/user/v1/user/updateProfile', c.token, { nickname: 'Ann', email: 'a@x.cn' })).statusCode).toBe(
      200,
    );
    expect((await post('/user/v1/user/updateProfile', c.token, { nickname: 'Bea', email: 'a@x.cn' })).statusCode).toBe(
      200,
    );
    const [edit] = (await list(c.token, { action: 'profile.update' })).list;
    expect(edit).toMatchObject({ userName: c.username, resource: 'user', result: 'ok' });
    expect(edit.changes).toEqual({ nickname: { before: 'Ann', after: 'Bea' } });

    const newPassword = 'N3wSecretPass';
    const changed = await post('/user/v1/user/changePassword', c.token, {
      oldPassword: c.password,
      password: newPassword,
      confirmPassword: newPassword,
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const [pw] = (await list(c.token, { action: 'password.change' })).list;
    expect(pw.changes).toEqual({ password: { before: '***', after: '***' } });

    const subPassword = 'Sub0Passw0rdZ';
    const sub = await post('/system/subAccount/create', c.token, {
      username: `sub_${uniq()}`,
      nickname: 'Clerk',
      password: subPassword,
      confirmPassword: subPassword,
    });
    expect(sub.statusCode, sub.body).toBe(200);
    const subId = sub.body_.data.id as number;
    const upd = await post('/system/subAccount/update', c.token, {
      id: subId,
      nickname: 'Head clerk',
      mobile: '',
      email: '',
      roleIds: [],
    });
    expect(upd.statusCode, upd.body).toBe(200);
    const subEntries = (await list(c.token, { resource: 'user', resourceId: subId })).list;
    expect(subEntries.map((e) => e.action)).toEqual(['user.update', 'user.create']);
    expect(subEntries[0].changes.nickname).toEqual({ before: 'Clerk', after: 'Head clerk' });
    expect(subEntries[1].changes.password).toEqual({ before: '***', after: '***' });
    const reset = 'R3setPassw0rd';
    expect(
      (await post('/system/subAccount/resetPassword', c.token, { id: subId, password: reset, confirmPassword: reset }))
        .statusCode,
    ).toBe(200);

    // no password this test used is anywhere in the table, in any column
    const { rows } = await sql<{ t: string }>`SELECT string_agg(a::text, ' ') AS t FROM audit_log a`.execute(h.db);
    for (const secret of [c.password, newPassword, subPassword, reset, 'Wr0ngPassw0rd!x']) {
      expect(rows[0].t).not.toContain(secret);
    }
  });

  it('records staff changes (device models, the registry) and never a bind key or secret', async () => {
    const code = `M${uniq().toUpperCase()}`;
    const m = await post('/system/deviceModel/add', staff, { code, name: 'Model one', kind: 'printer' });
    expect(m.statusCode, m.body).toBe(200);
    expect((await post('/system/deviceModel/edit', staff, { id: m.body_.data.id, name: 'Model two' })).statusCode).toBe(
      200,
    );
    const [edit] = (await list(staff, { action: 'device-model.edit', resourceId: m.body_.data.id })).list;
    expect(edit.changes).toEqual({ name: { before: 'Model one', after: 'Model two' } });
    const reg = await post('/system/deviceRegistry/register', staff, { sn: `SL-${uniq()}`, model: code });
    expect(reg.statusCode, reg.body).toBe(200);
    const d = reg.body_.data.devices[0];
    const [entry] = (await list(staff, { action: 'device.register', resourceId: d.id })).list;
    expect(entry.changes.sn).toEqual({ before: null, after: d.sn });
    expect(entry.changes.bindKey).toEqual({ before: '***', after: '***' });
    expect(JSON.stringify(entry)).not.toContain(d.bindKey);
    expect(JSON.stringify(entry)).not.toContain(d.secret);
  });

  it('records every refused access (403) with the route and the permission', async () => {
    const c = await registerCustomer(h);
    expect((await get('/system/deviceModel/list', c.token)).statusCode).toBe(403);
    const [denied] = (await list(c.token, { result: 'denied' })).list;
    expect(denied).toMatchObject({
      action: 'access.denied',
      userName: c.username,
      resource: 'route',
      resourceId: 'GET /apiAdmin/system/deviceModel/list',
      details: { reason: 'auth.permissionRequired', permission: 'device:model:manage' },
    });
  });
});

describe('who sees what, and searching', () => {
  it('shows a customer its own tenant only, staff every tenant; a customer cannot pick a tenant', async () => {
    const a = await registerCustomer(h);
    const b = await registerCustomer(h);
    const seenByA = (await list(a.token, { pageSize: 100 })).list;
    expect(seenByA.length).toBeGreaterThan(0);
    expect(seenByA.every((e) => e.userName === a.username)).toBe(true);
    expect(seenByA.some((e) => e.userName === b.username)).toBe(false);
    expect((await list(a.token, { user: b.username })).list).toEqual([]);
    const tenantB = (await list(b.token)).list[0].tenantId!;
    const other = await get(`/system/log/list?tenantId=${tenantB}`, a.token);
    expect(other.statusCode).toBe(400);
    expect(other.body_.data.fields[0].field).toBe('tenantId');
    const all = (await list(staff, { pageSize: 100 })).list.map((e) => e.userName);
    expect(all).toContain(a.username);
    expect(all).toContain(b.username);
    const onlyB = (await list(staff, { tenantId: tenantB, pageSize: 100 })).list;
    expect(onlyB.length).toBeGreaterThan(0);
    expect(onlyB.every((e) => e.tenantId === tenantB && e.tenantName === b.username)).toBe(true);
  });

  it('filters by user, action prefix, object, result and time, newest first', async () => {
    const c = await registerCustomer(h);
    for (const n of ['One', 'Two', 'Three'])
      await post('/user/v1/user/updateProfile', c.token, { nickname: n, email: '' });
    const byUser = (await list(staff, { user: c.username.toUpperCase() })).list;
    expect(byUser.map((e) => e.action)).toEqual(['profile.update', 'profile.update', 'profile.update', 'register']);
    const at = byUser.map((e) => Date.parse(e.at));
    expect([...at].sort((x, y) => y - x)).toEqual(at);
    expect((await list(c.token, { action: 'profile.' })).list).toHaveLength(3);
    expect((await list(c.token, { action: 'profile.update' })).list).toHaveLength(3);
    expect((await list(c.token, { action: 'prof' })).list).toHaveLength(3);
    expect((await list(c.token, { action: 'device.' })).list).toHaveLength(0);
    const me = byUser[0].userId!;
    expect((await list(c.token, { resource: 'user', resourceId: me })).list).toHaveLength(3);
    expect((await list(c.token, { result: 'fail' })).list).toHaveLength(0);
    const from = new Date(Date.parse(byUser[1].at)).toISOString();
    const recent = (await list(c.token, { from })).list;
    expect(recent.map((e) => e.changes.nickname?.after)).toEqual(['Three', 'Two']);
    expect((await list(c.token, { to: String(Date.parse(byUser[3].at) + 1) })).list.map((e) => e.action)).toEqual([
      'register',
    ]);
    const bad = await get('/system/log/list?from=yesterday', c.token);
    expect(bad.statusCode).toBe(400);
    expect((await get('/system/log/list?cursor=abc', c.token)).statusCode).toBe(400);
  });

  it('pages by cursor: every entry once, in order, whatever the page size; the first page counts them', async () => {
    const c = await registerCustomer(h);
    for (let i = 0; i < 7; i++) await post('/user/v1/user/updateProfile', c.token, { nickname: `N${i}`, email: '' });
    const whole = await list(c.token, { pageSize: 100 });
    expect(whole.total).toBe(whole.list.length);
    expect(whole.totalKind).toBe('exact');
    const seen: number[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const page = await list(c.token, { pageSize: 3, ...(cursor ? { cursor } : {}) });
      if (cursor) expect(page.total).toBeNull();
      seen.push(...page.list.map((e) => e.id));
      cursor = page.next;
      if (!cursor) break;
    }
    expect(seen).toEqual(whole.list.map((e) => e.id));

    // within a time range too (the cursor takes the place of its end)
    const range = {
      from: new Date(Date.now() - 3_600_000).toISOString(),
      to: new Date(Date.now() + 60_000).toISOString(),
    };
    const inRange: number[] = [];
    cursor = null;
    for (let pages = 0; pages < 10; pages++) {
      const page = await list(c.token, { pageSize: 4, ...range, ...(cursor ? { cursor } : {}) });
      inRange.push(...page.list.map((e) => e.id));
      cursor = page.next;
      if (!cursor) break;
    }
    expect(inRange).toEqual(whole.list.map((e) => e.id));
    // a cursor older than the range's start: nothing more
    const old = `${(Date.now() - 7_200_000) * 1000}.1`;
    expect((await list(c.token, { ...range, cursor: old })).list).toEqual([]);
    // a cursor newer than the range's end: the range from its end, as without one
    const ended = { from: range.from, to: whole.list[3].at };
    const fresh = `${(Date.now() + 3_600_000) * 1000}.1`;
    const fromEnd = await list(c.token, { ...ended, pageSize: 100 });
    expect(fromEnd.list.length).toBeGreaterThan(0);
    expect((await list(c.token, { ...ended, pageSize: 100, cursor: fresh })).list.map((e) => e.id)).toEqual(
      fromEnd.list.map((e) => e.id),
    );
  });

  it('refuses the list to a caller without system:log:view', async () => {
    const c = await registerCustomer(h);
    const sub = await post('/system/subAccount/create', c.token, {
      username: `sub_${uniq()}`,
      password: 'Sub0Passw0rd',
      confirmPassword: 'Sub0Passw0rd',
    });
    const login = await h.login(sub.body_.data.username, 'Sub0Passw0rd');
    expect((await get('/system/log/list', login.token)).statusCode).toBe(403);
    expect((await get('/system/log/export', login.token)).statusCode).toBe(403);
  });
});

describe('CSV export', () => {
  it('streams the filter as CSV, header in the caller language, cells that could run as formulas made text', async () => {
    const c = await registerCustomer(h);
    await post('/user/v1/user/updateProfile', c.token, { nickname: 'Say "hi", all', email: '' });
    const res = await get('/system/log/export?action=profile.update', c.token, { 'accept-language': 'zh-CN' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toMatch(/attachment; filename="system-log-\d+\.csv"/);
    const lines = res.body
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('时间,租户,用户,IP 地址,设备,操作,对象,对象 ID,结果,变更,详情');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`,${c.username},127.0.0.1,,profile.update,user,`);
    // a comma and quotes: the cell is quoted, its quotes doubled
    expect(lines[1]).toContain('"nickname: """" → ""Say \\""hi\\"", all"""');

    // a name typed into the sign-in form is the account of a failed sign-in: a formula there stays text
    const evil = `=HYPERLINK("x/${uniq()}")`;
    const tried = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/login',
      payload: { username: evil, password: 'xxxxxxxx' },
    });
    expect(tried.statusCode).toBe(401);
    const staffCsv = await get(`/system/log/export?lang=en&action=login&result=fail`, staff);
    const [header, ...rows] = staffCsv.body
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    expect(header).toBe('Time,Tenant,User,IP address,Device,Action,Object,Object id,Result,Changes,Details');
    const row = rows.find((r) => r.includes(evil.toLowerCase().slice(14, 20)));
    expect(row).toContain(`,"'${evil.toLowerCase().replace(/"/g, '""')}",`);
  });

  it('guards every cell that starts like a formula', async () => {
    const { csvCell } = await import('../src/modules/system-log/csv.ts');
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-1')).toBe("'-1");
    expect(csvCell('@x')).toBe("'@x");
    expect(csvCell('a,"b"')).toBe('"a,""b"""');
    expect(csvCell('plain')).toBe('plain');
  });
});

describe('retention', () => {
  it('prunes entries past the retention in batches, keeps the rest, and skips while another node prunes', async () => {
    const marker = `old_${uniq()}`;
    await sql`INSERT INTO audit_log (at, ip, action, result, subject)
      SELECT now() - make_interval(days => 181 + n), '10.0.0.1', 'test.old', 'ok', ${marker} FROM generate_series(1, 7) n`.execute(
      h.db,
    );
    await sql`INSERT INTO audit_log (at, ip, action, result, subject)
      VALUES (now() - interval '179 days', '10.0.0.1', 'test.old', 'ok', ${marker})`.execute(h.db);
    const left = async () =>
      Number(
        (
          await h.db
            .selectFrom('audit_log')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('subject', '=', marker)
            .executeTakeFirstOrThrow()
        ).n,
      );
    // another node holds the lock: this one deletes nothing
    await h.db.connection().execute(async (conn) => {
      await sql`SELECT pg_advisory_lock(${0x5359_534c})`.execute(conn);
      try {
        expect(await pruneSystemLog(h.db, 180, 3)).toBe(0);
      } finally {
        await sql`SELECT pg_advisory_unlock(${0x5359_534c})`.execute(conn);
      }
    });
    expect(await left()).toBe(8);
    expect(await pruneSystemLog(h.db, 180, 3)).toBeGreaterThanOrEqual(7);
    expect(await left()).toBe(1);
    expect(h.config.SYSTEM_LOG_RETENTION_DAYS).toBe(180);
  });
});
