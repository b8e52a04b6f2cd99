import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS, type MenuNode } from '@cpc/contracts';
import { ADMIN_PASSWORD, createHarness, registerCustomer, type Harness } from './harness.ts';
import { openEvents, subAccountWith } from './device-helpers.ts';
import { MENU, MENU_SEED_VERSION, seedMenus } from '../src/modules/menu/index.ts';

let h: Harness;
let staff: string;

beforeAll(async () => {
  h = await createHarness();
  staff = (await h.login('admin', ADMIN_PASSWORD)).token;
}, 60_000);
afterAll(() => h.close());

const get = (url: string, token: string) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });
const post = (url: string, token: string, payload: unknown) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload: payload as object });

/** A change by staff that must go through. */
const done = async (url: string, payload: unknown) => {
  const res = await post(url, staff, payload);
  expect(res.statusCode, res.body).toBe(200);
  return res;
};
const tree = async (): Promise<MenuNode[]> => (await get('/system/menu/tree', staff)).body_.data;
const flat = (nodes: MenuNode[]): MenuNode[] => nodes.flatMap((n) => [n, ...flat(n.children ?? [])]);
const byName = async (name: string) => flat(await tree()).find((n) => n.name === name);
const childNames = async (name: string) => ((await byName(name))?.children ?? []).map((c) => c.name);
const userMenu = async (token: string): Promise<MenuNode[]> => (await get('/admin/login/getMenu', token)).body_.data;

/** The edit body of a record as the tree lists it, with some fields changed. */
const editOf = (n: MenuNode, over: Partial<MenuNode> = {}) => {
  const { id, path, name, component, redirect, meta } = { ...n, ...over };
  return { id, path, name, component, redirect, meta };
};

let seq = 0;
const record = (over: Record<string, unknown> = {}) => ({
  path: `extra${++seq}`,
  name: `Extra${seq}`,
  component: 'device/map',
  meta: { title: 'route.deviceMap', i18n: { zh: `额外${seq}`, en: `Extra ${seq}` } },
  ...over,
});

describe('who may edit menus', () => {
  const routes: Array<[string, string, unknown?]> = [
    ['GET', '/system/menu/tree'],
    ['GET', '/system/menu/versions'],
    ['GET', '/system/menu/version?id=1'],
    ['POST', '/system/menu/add', { parentId: null, ...record() }],
    ['POST', '/system/menu/edit', { id: 1, ...record() }],
    ['POST', '/system/menu/delete', { id: 1 }],
    ['POST', '/system/menu/move', { id: 1, parentId: null, index: 3 }],
    ['POST', '/system/menu/rollback', { id: 1 }],
  ];
  it.each(routes)(
    '%s %s answers 403 to a customer, its sub-account and staff without system:menu:edit',
    async (method, url, body) => {
      const customer = await registerCustomer(h);
      const tenant = await h.db
        .selectFrom('users')
        .select('tenant_id')
        .where('username', '=', customer.username)
        .executeTakeFirstOrThrow();
      const platform = await h.db
        .selectFrom('tenants')
        .select('id')
        .where('kind', '=', 'platform')
        .executeTakeFirstOrThrow();
      const tokens = [
        customer.token,
        // even holding the code itself, a customer's sub-account is not staff
        await subAccountWith(h, tenant.tenant_id, [PERMISSIONS.menuEdit]),
        await subAccountWith(h, platform.id, [PERMISSIONS.identityReview]),
      ];
      const before = JSON.stringify(await tree());
      for (const token of tokens) {
        const res = await h.call({
          method: method as 'GET' | 'POST',
          url: `/apiAdmin${url}`,
          token,
          ...(body ? { payload: body as object } : {}),
        });
        expect(res.statusCode).toBe(403);
        expect(res.body_.code).toBe(403);
      }
      expect(JSON.stringify(await tree())).toBe(before);
    },
  );
});

describe('editing the tree', () => {
  it('lists every record with ids and full paths, hidden ones too', async () => {
    const nodes = flat(await tree());
    expect(nodes.find((n) => n.name === 'DeviceDetail')).toMatchObject({
      fullPath: '/device/detail',
      meta: { hidden: true },
    });
    expect(nodes.find((n) => n.name === 'MenuManagement')?.fullPath).toBe('/system/menu');
  });

  it('adds, edits, moves and deletes a record; each change is a version and in the system log', async () => {
    const versionsBefore = (await get('/system/menu/versions', staff)).body_.data.length;
    const device = await byName('Device');
    const body = record();
    const add = await post('/system/menu/add', staff, { parentId: device!.id, ...body });
    expect(add.statusCode).toBe(200);
    const id = add.body_.data.id as number;
    expect(await childNames('Device')).toEqual(['DeviceIndex', 'DeviceDetail', 'DeviceMap', body.name]);
    expect((await byName(body.name))?.fullPath).toBe(`/device/${body.path}`);

    const edit = await post('/system/menu/edit', staff, {
      id,
      ...body,
      path: 'renamed',
      meta: { ...body.meta, hidden: true, badge: { source: 'unreadMessages' }, guard: { role: ['x'], mode: 'except' } },
    });
    expect(edit.statusCode).toBe(200);
    expect(await byName(body.name)).toMatchObject({
      fullPath: '/device/renamed',
      meta: { hidden: true, badge: { source: 'unreadMessages' }, guard: { role: ['x'], mode: 'except' } },
    });

    // drag: to the top level, second place
    const move = await post('/system/menu/move', staff, { id, parentId: null, index: 1 });
    expect(move.statusCode).toBe(200);
    expect((await tree()).map((n) => n.name).slice(0, 3)).toEqual(['Root', body.name, 'Person']);
    expect((await byName(body.name))?.fullPath).toBe('/renamed');

    const del = await post('/system/menu/delete', staff, { id });
    expect(del.statusCode).toBe(200);
    expect(await byName(body.name)).toBeUndefined();
    expect((await post('/system/menu/delete', staff, { id })).statusCode).toBe(404);

    const versions = (await get('/system/menu/versions', staff)).body_.data;
    expect(versions.length).toBe(versionsBefore + 4);
    expect(versions[0]).toMatchObject({ username: 'admin', note: `delete #${id}` });
    const log = await h.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('resource', '=', 'menu')
      .where('resource_id', '=', String(id))
      .orderBy('id')
      .execute();
    expect(log.map((l) => l.action)).toEqual(['menu.create', 'menu.update', 'menu.move', 'menu.delete']);
    expect((log[1].details as { changes: Record<string, unknown> }).changes.path).toEqual({
      before: body.path,
      after: 'renamed',
    });
  });

  it('deletes a record with everything below it', async () => {
    const group = await post('/system/menu/add', staff, {
      parentId: null,
      ...record({ component: 'Layout', redirect: undefined }),
    });
    const gid = group.body_.data.id;
    const child = record();
    expect((await post('/system/menu/add', staff, { parentId: gid, ...child })).statusCode).toBe(200);
    expect((await post('/system/menu/delete', staff, { id: gid })).statusCode).toBe(200);
    expect(await byName(child.name)).toBeUndefined();
  });

  it('moves a record among its siblings', async () => {
    const map = await byName('DeviceMap');
    const device = await byName('Device');
    expect((await post('/system/menu/move', staff, { id: map!.id, parentId: device!.id, index: 0 })).statusCode).toBe(
      200,
    );
    expect(await childNames('Device')).toEqual(['DeviceMap', 'DeviceIndex', 'DeviceDetail']);
    await post('/system/menu/move', staff, { id: map!.id, parentId: device!.id, index: 99 });
    expect(await childNames('Device')).toEqual(['DeviceIndex', 'DeviceDetail', 'DeviceMap']);
  });
});

describe('bad input', () => {
  const refused = async (url: string, body: unknown, field: string) => {
    const before = JSON.stringify(await tree());
    const res = await post(url, staff, body);
    expect(res.statusCode).toBe(400);
    expect(res.body_.data.fields.map((f: { field: string }) => f.field)).toContain(field);
    expect(JSON.stringify(await tree())).toBe(before);
    return res;
  };

  it('refuses a missing component, a duplicate path or name, a dangling redirect or activeMenu', async () => {
    const device = (await byName('Device'))!;
    const under = (over: Record<string, unknown>) => ({ parentId: device.id, ...record(over) });
    const unknown = await refused('/system/menu/add', under({ component: 'nowhere/page' }), 'component');
    expect(unknown.body_.msg).toContain('nowhere/page');
    await refused('/system/menu/add', under({ component: undefined }), 'component');
    await refused('/system/menu/add', under({ path: 'map' }), 'path');
    await refused('/system/menu/add', under({ path: '/device/map' }), 'path');
    await refused('/system/menu/add', under({ name: 'devicemap' }), 'name');
    await refused('/system/menu/add', under({ redirect: '/nowhere' }), 'redirect');
    await refused(
      '/system/menu/add',
      under({ meta: { title: 'route.device', activeMenu: '/nowhere' } }),
      'meta.activeMenu',
    );
    await refused('/system/menu/add', under({ meta: { title: 'x', colour: 'red' } }), 'meta.colour');
    await refused('/system/menu/add', under({ meta: { title: 'x', guard: { mode: 'sometimes' } } }), 'meta.guard');
    await refused('/system/menu/add', under({ meta: { title: 'x', badge: { source: 'weather' } } }), 'meta.badge');
    // renaming a record onto another's path, including by its parent's path moving
    const map = (await byName('DeviceMap'))!;
    await refused('/system/menu/edit', { id: map.id, ...record({ name: 'DeviceMap', path: 'detail' }) }, 'path');
    await refused('/system/menu/edit', { id: device.id, ...record({ name: 'Device', path: '/integration' }) }, 'path');
  });

  it("refuses a change that leaves another record's redirect or highlight leading nowhere", async () => {
    const device = (await byName('Device'))!;
    const index = (await byName('DeviceIndex'))!;
    // Root redirects to /device; Device redirects to /device/index, which DeviceIndex and DeviceMap highlight
    const del = await refused('/system/menu/delete', { id: device.id }, 'id');
    expect(del.body_.msg).toContain('Root');
    await refused('/system/menu/edit', editOf(index, { path: 'home' }), 'path');
    const person = (await byName('Person'))!;
    const moved = await refused('/system/menu/move', { id: index.id, parentId: person.id, index: 0 }, 'parentId');
    expect(moved.body_.msg).toContain('/device/index');
  });

  it('refuses moving a record under itself, and unknown ids', async () => {
    const device = (await byName('Device'))!;
    const index = (await byName('DeviceIndex'))!;
    await refused('/system/menu/move', { id: device.id, parentId: index.id, index: 0 }, 'parentId');
    await refused('/system/menu/move', { id: device.id, parentId: device.id, index: 0 }, 'parentId');
    expect((await post('/system/menu/move', staff, { id: 999999, parentId: null, index: 0 })).statusCode).toBe(404);
    expect((await post('/system/menu/edit', staff, { id: 999999, ...record() })).statusCode).toBe(404);
    expect((await get('/system/menu/version?id=999999', staff)).statusCode).toBe(404);
    expect((await post('/system/menu/rollback', staff, { id: 999999 })).statusCode).toBe(404);
    expect((await get('/system/menu/version?id=abc', staff)).statusCode).toBe(400);
  });
});

describe('versions', () => {
  it('rolls back to an earlier version, itself a new version, and new records get fresh ids', async () => {
    const [latest] = (await get('/system/menu/versions', staff)).body_.data;
    const map = (await byName('DeviceMap'))!;
    await done('/system/menu/edit', editOf(map, { meta: { ...map.meta, hidden: true } }));
    const extra = await post('/system/menu/add', staff, { parentId: null, ...record() });
    expect((await byName('DeviceMap'))?.meta.hidden).toBe(true);

    const preview = await get(`/system/menu/version?id=${latest.id}`, staff);
    expect(flat(preview.body_.data.tree).find((n: MenuNode) => n.name === 'DeviceMap')?.meta.hidden).toBeUndefined();

    const back = await post('/system/menu/rollback', staff, { id: latest.id });
    expect(back.statusCode).toBe(200);
    expect((await byName('DeviceMap'))?.meta.hidden).toBeUndefined();
    expect(flat(await tree()).some((n) => n.id === extra.body_.data.id)).toBe(false);
    expect((await get('/system/menu/versions', staff)).body_.data[0].note).toBe(`rollback to #${latest.id}`);
    const again = await post('/system/menu/add', staff, { parentId: null, ...record() });
    expect(again.statusCode).toBe(200);
    await post('/system/menu/delete', staff, { id: again.body_.data.id });
  });
});

describe('what users see', () => {
  it('a customer sees the order and the hidden state staff set, on their next load', async () => {
    const customer = (await registerCustomer(h)).token;
    const top = (await userMenu(customer)).map((n) => n.name);
    expect(top.indexOf('Device')).toBeLessThan(top.indexOf('Integration'));
    const integration = (await byName('Integration'))!;
    const map = (await byName('DeviceMap'))!;
    await post('/system/menu/move', staff, { id: integration.id, parentId: null, index: 0 });
    await done('/system/menu/edit', editOf(map, { meta: { ...map.meta, hidden: true } }));
    const after = await userMenu(customer);
    const names = after.map((n) => n.name);
    expect(names.indexOf('Integration')).toBeLessThan(names.indexOf('Device'));
    expect(flat(after).find((n) => n.name === 'DeviceMap')?.meta.hidden).toBe(true);
    await post('/system/menu/move', staff, { id: integration.id, parentId: null, index: 4 });
    await done('/system/menu/edit', editOf(map));
  });

  it('counts the live badge sources for the signed-in user only', async () => {
    const a = await registerCustomer(h);
    const b = await registerCustomer(h);
    const info = async (token: string) => (await get('/user/v1/user/userInfo', token)).body_.data;
    const ua = await info(a.token);
    const user = await h.db
      .selectFrom('users')
      .select(['id', 'tenant_id'])
      .where('username', '=', ua.username)
      .executeTakeFirstOrThrow();
    expect((await get('/menu/liveCounts', a.token)).body_.data).toEqual({ unreadMessages: 0 });
    await h.db
      .insertInto('messages')
      .values(
        [1, 2, 3].map((i) => ({
          tenant_id: user.tenant_id,
          user_id: user.id,
          kind: 'k',
          title: `m${i}`,
          body: '',
          read_at: i === 3 ? new Date() : null,
        })),
      )
      .execute();
    expect((await get('/menu/liveCounts', a.token)).body_.data).toEqual({ unreadMessages: 2 });
    expect((await get('/menu/liveCounts', b.token)).body_.data).toEqual({ unreadMessages: 0 });
    expect((await h.call({ method: 'GET', url: '/apiAdmin/menu/liveCounts' })).statusCode).toBe(401);
  });
});

describe('live events', () => {
  it("tells every signed-in console, customers' too, that the menu changed", async () => {
    const base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const customer = await registerCustomer(h);
    const [staffEv, customerEv] = [await openEvents(h, base, staff), await openEvents(h, base, customer.token)];
    try {
      const map = (await byName('DeviceMap'))!;
      const res = await done('/system/menu/edit', editOf(map, { meta: { ...map.meta, badge: 'new' } }));
      const version = res.body_.data.version;
      for (const ev of [staffEv, customerEv])
        await ev.waitFor('the menu event', (e) => e.type === 'menu' && e.data.version === version);
      await done('/system/menu/edit', editOf(map));
    } finally {
      staffEv.close();
      customerEv.close();
    }
  });
});

describe('seeding', () => {
  it('keeps staff edits, moves and deletions at a restart, and adds only what a new release brings', async () => {
    const map = (await byName('DeviceMap'))!;
    const detail = (await byName('DeviceDetail'))!;
    const device = (await byName('Device'))!;
    await done('/system/menu/edit', editOf(map, { meta: { ...map.meta, title: 'route.device', hidden: true } }));
    await done('/system/menu/move', { id: map.id, parentId: device.id, index: 0 });
    await done('/system/menu/delete', { id: detail.id });
    const before = JSON.stringify(await tree());

    expect(await seedMenus(h.db)).toBe(0);
    expect(JSON.stringify(await tree())).toBe(before);

    const v = MENU_SEED_VERSION + 1;
    // a new release: one new top record with a child, one new child of an existing record, one under a deleted one
    const next = structuredClone(MENU);
    next.push({
      path: '/reports',
      name: 'Reports',
      component: 'Layout',
      meta: { title: 'route.reports' },
      children: [{ path: 'daily', name: 'ReportsDaily', component: 'home/index', meta: { title: 'route.daily' } }],
    });
    next
      .find((r) => r.name === 'Device')!
      .children!.push({ path: 'extra', name: 'DeviceExtra', component: 'device/map', meta: { title: 'x' } });
    next.find((r) => r.name === 'Device')!.children!.find((r) => r.name === 'DeviceDetail')!.children = [
      { path: 'sub', name: 'DetailSub', component: 'device/map', meta: { title: 'x' } },
    ];
    expect(await seedMenus(h.db, next, v)).toBe(3);
    expect(await byName('DeviceDetail')).toBeUndefined();
    expect(await byName('DetailSub')).toBeUndefined();
    expect((await byName('ReportsDaily'))?.fullPath).toBe('/reports/daily');
    expect((await byName('DeviceExtra'))?.fullPath).toBe('/device/extra');
    expect(await byName('DeviceMap')).toMatchObject({ meta: { title: 'route.device', hidden: true } });
    expect(await childNames('Device')).toEqual(['DeviceMap', 'DeviceIndex', 'DeviceExtra']);
    const seeds = await h.db.selectFrom('menu_seeds').selectAll().where('version', '=', v).orderBy('name').execute();
    expect(seeds.map((s) => s.name)).toEqual(['DetailSub', 'DeviceExtra', 'Reports', 'ReportsDaily']);
    expect((await get('/system/menu/versions', staff)).body_.data[0].note).toBe(`seed v${v}: 3 new`);

    // a restart after that release changes nothing again
    expect(await seedMenus(h.db, next, v)).toBe(0);
    expect((await get('/system/menu/versions', staff)).body_.data[0].note).toBe(`seed v${v}: 3 new`);

    // a menu older than versions gets its first one at the next start
    await h.db.deleteFrom('menu_versions').execute();
    expect(await seedMenus(h.db, next, v)).toBe(0);
    const [initial] = (await get('/system/menu/versions', staff)).body_.data;
    expect(initial.note).toBe('initial');
    expect((await get(`/system/menu/version?id=${initial.id}`, staff)).body_.data.tree).toEqual(await tree());
  });
});
