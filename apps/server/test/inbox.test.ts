import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { sql } from 'kysely';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS, type LiveEvent } from '@cpc/contracts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { Presence } from '../src/plugins/mqtt/presence.ts';
import { SandboxGateway } from '../src/modules/order/payment/index.ts';
import { sweepSims } from '../src/modules/flow-rate/upkeep.ts';
import { LiveEvents, type EventSink } from '../src/plugins/live-events.ts';
import { DeviceBus } from '../src/plugins/mqtt/device-bus.ts';
import {
  InboxMailer,
  listenForDeviceFaults,
  readMailOutbox,
  sendMessages,
  type NewMessage,
} from '../src/modules/inbox/index.ts';
import { ADMIN_PASSWORD, createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, openEvents, subAccountWith, waitUntil, type Customer } from './device-helpers.ts';

/**
 * The message centre (issue 14) on real PostgreSQL: the inbox's filters, paging, detail, read and delete, each
 * user's own messages only, live `message` events, the order-paid and device-fault messages, and each message
 * mailed exactly once (the outbox file by the periodic job; a real SMTP server through nodemailer).
 */
/** A device bus on which the message centre hears paper changes, as in the app. */
function faultBus(db: Harness['db'], sink: EventSink): DeviceBus {
  const bus = new DeviceBus();
  listenForDeviceFaults(bus, db, sink);
  return bus;
}

describe('the message centre', () => {
  let h: Harness;
  let base: string;
  let A: Customer;
  let B: Customer;
  let aId: number;
  let bId: number;
  const specs = makeSpecs(3, { seed: 1401, prefix: 'INB' });
  let deviceIds: Map<string, number>;

  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: unknown, lang = 'en') =>
    h.call({
      method,
      url: `/apiAdmin${url}`,
      token,
      headers: { 'accept-language': lang },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const userId = async (tenantId: number) =>
    (
      await h.db
        .selectFrom('users')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('is_super', '=', 1)
        .executeTakeFirstOrThrow()
    ).id;
  async function send(messages: NewMessage[]) {
    const announce = await sendMessages(h.db, messages);
    announce(undefined);
  }
  const list = async (token: string, query = '') => {
    const res = await call('GET', `/message/getList${query}`, token);
    expect(res.statusCode, res.body).toBe(200);
    return res.body_.data as {
      list: Array<{ id: number; kind: string; title: string; link: string; readAt: string | null }>;
      total: number;
    };
  };

  beforeAll(async () => {
    h = await createHarness({ MAIL_INTERVAL_MS: '200' });
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    A = await customer(h);
    B = await customer(h);
    aId = await userId(A.tenantId);
    bId = await userId(B.tenantId);
    deviceIds = await devicesOf(h, A.tenantId, specs);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('filters by group, read state, time and keyword (titles in either language), with server paging', async () => {
    const t = A.tenantId;
    await send([
      { tenantId: t, userId: aId, kind: 'identity.reviewed', title: 'identity.approvedTitle', link: '/person/info' },
      {
        tenantId: t,
        userId: aId,
        kind: 'sim.low',
        title: 'flowRate.lowTitle',
        body: 'ICCID 8986001',
        link: '/flowRate/flowRateSearch?keyword=8986001',
      },
      { tenantId: t, userId: aId, kind: 'device.fault', title: 'inbox.deviceFaultOut', body: 'SN-FILTER-1' },
    ]);
    for (let i = 0; i < 22; i++) {
      await send([
        { tenantId: t, userId: aId, kind: 'order.fulfilled', title: 'inbox.orderFulfilledTitle', body: `ORDER-${i}` },
      ]);
    }
    const all = await list(A.token, '?pageSize=10');
    expect(all.total).toBe(25);
    expect(all.list).toHaveLength(10);
    // newest first
    expect(all.list[0].kind).toBe('order.fulfilled');
    const page3 = await list(A.token, '?pageSize=10&pageNo=3');
    expect(page3.list.map((m) => m.kind)).toEqual([
      'order.fulfilled',
      'order.fulfilled',
      'device.fault',
      'sim.low',
      'identity.reviewed',
    ]);

    expect((await list(A.token, '?group=sim')).list).toMatchObject([
      { kind: 'sim.low', title: 'SIM data running low', link: '/flowRate/flowRateSearch?keyword=8986001' },
    ]);
    expect((await list(A.token, '?group=order')).total).toBe(22);
    // a title is found in the reader's words, in either language; the body too
    expect((await list(A.token, `?keyword=${encodeURIComponent('缺纸')}`)).list.map((m) => m.kind)).toEqual([
      'device.fault',
    ]);
    expect((await list(A.token, '?keyword=out%20of%20paper')).total).toBe(1);
    expect((await list(A.token, '?keyword=sn-filter')).total).toBe(1);
    expect((await list(A.token, '?keyword=ORDER-1')).total).toBe(11); // ORDER-1, ORDER-10..19
    expect((await list(A.token, '?keyword=%25')).total).toBe(0); // a LIKE wildcard is a plain character

    // zh readers read zh titles
    const zh = await call('GET', '/message/getList?group=identity', A.token, undefined, 'zh-CN');
    expect(zh.body_.data.list[0].title).toBe('实名认证已通过');

    // time range
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await list(A.token, `?from=${encodeURIComponent(future)}`)).total).toBe(0);
    expect((await list(A.token, `?to=${encodeURIComponent(future)}`)).total).toBe(25);

    // read state
    const firstTwo = all.list.slice(0, 2).map((m) => m.id);
    const read = await call('POST', '/message/read', A.token, { ids: firstTwo });
    expect(read.body_.data.updated).toBe(2);
    expect((await list(A.token, '?read=read')).total).toBe(2);
    expect((await list(A.token, '?read=unread')).total).toBe(23);
    expect((await call('GET', '/message/unreadCount', A.token)).body_.data.count).toBe(23);

    // bad input names its field; nothing answers 500
    for (const [q, field] of [
      ['?group=spam', 'group'],
      ['?read=maybe', 'read'],
      ['?from=yesterday', 'from'],
      ['?pageSize=1000', 'pageSize'],
      [`?keyword=${'x'.repeat(51)}`, 'keyword'],
      ['?extra=1', 'extra'],
    ] as const) {
      const res = await call('GET', `/message/getList${q}`, A.token);
      expect(res.statusCode, q).toBe(400);
      expect(JSON.stringify(res.body_.data), q).toContain(field);
    }
  });

  it('opens one message (marks it read), marks all read per group, deletes only the caller\u2019s own', async () => {
    const t = A.tenantId;
    await send([
      {
        tenantId: t,
        userId: aId,
        kind: 'sim.expired',
        title: 'flowRate.expiredTitle',
        link: '/flowRate/flowRateSearch',
      },
    ]);
    const [m] = (await list(A.token, '?group=sim&read=unread&pageSize=1')).list;
    const opened = await call('GET', `/message/detail?id=${m.id}`, A.token);
    expect(opened.statusCode).toBe(200);
    expect(opened.body_.data).toMatchObject({ id: m.id, title: 'SIM plan expired', readAt: expect.any(String) });
    expect((await list(A.token, '?group=sim&read=unread')).total).toBe(1);

    const sims = await call('POST', '/message/readAll', A.token, { group: 'sim' });
    expect(sims.body_.data.updated).toBe(1);
    expect((await list(A.token, '?group=sim&read=unread')).total).toBe(0);
    expect((await list(A.token, '?group=order&read=unread')).total).toBeGreaterThan(0);
    const everything = await call('POST', '/message/readAll', A.token);
    expect(everything.statusCode, everything.body).toBe(200);
    expect((await call('GET', '/message/unreadCount', A.token)).body_.data.count).toBe(0);

    const before = (await list(A.token)).total;
    const gone = await call('POST', '/message/delete', A.token, { ids: [m.id] });
    expect(gone.body_.data.deleted).toBe(1);
    expect((await list(A.token)).total).toBe(before - 1);
    expect((await call('GET', `/message/detail?id=${m.id}`, A.token)).statusCode).toBe(404);
    const logged = await h.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('action', '=', 'message.delete')
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(logged.details)).toContain('SIM plan expired');
    expect((await call('POST', '/message/delete', A.token, { ids: [] })).statusCode).toBe(400);
  });

  it('never shows, marks or deletes another user\u2019s or another tenant\u2019s message', async () => {
    await send([
      { tenantId: B.tenantId, userId: bId, kind: 'identity.reviewed', title: 'identity.failedTitle', body: 'B secret' },
    ]);
    const [theirs] = (await list(B.token)).list;
    // another tenant
    expect((await call('GET', `/message/detail?id=${theirs.id}`, A.token)).statusCode).toBe(404);
    expect((await call('POST', '/message/read', A.token, { ids: [theirs.id] })).body_.data.updated).toBe(0);
    expect((await call('POST', '/message/delete', A.token, { ids: [theirs.id] })).body_.data.deleted).toBe(0);
    expect((await list(A.token, '?keyword=B%20secret')).total).toBe(0);
    // another user of the same tenant
    const sub = await subAccountWith(h, B.tenantId, [PERMISSIONS.deviceView]);
    expect((await call('GET', `/message/detail?id=${theirs.id}`, sub)).statusCode).toBe(404);
    expect((await call('POST', '/message/delete', sub, { ids: [theirs.id] })).body_.data.deleted).toBe(0);
    expect((await list(sub)).total).toBe(0);
    expect((await call('POST', '/message/readAll', sub)).body_.data.updated).toBe(0);
    // untouched
    const still = await call('GET', `/message/detail?id=${theirs.id}`, B.token);
    expect(still.body_.data).toMatchObject({ id: theirs.id, body: 'B secret' });
  });

  it('tells the user\u2019s consoles of each new message and each change, live', async () => {
    const ev = await openEvents(h, base, A.token);
    const other = await openEvents(h, base, B.token);
    // another node sends it: the event crosses over PostgreSQL
    const node2 = new LiveEvents(h.db, h.config.DATABASE_URL, pino({ level: 'silent' }));
    try {
      const mine = (e: LiveEvent) => e.type === 'message' && e.data.userId === aId;
      (
        await sendMessages(h.db, [
          { tenantId: A.tenantId, userId: aId, kind: 'notice.published', title: 'identity.approvedTitle' },
        ])
      )(node2);
      await node2.flush();
      await ev.waitFor('the new message', mine);
      const [m] = (await list(A.token, '?read=unread')).list;
      const n = ev.events.filter(mine).length;
      await call('POST', '/message/read', A.token, { ids: [m.id] });
      await waitUntil('the read', () => ev.events.filter(mine).length > n);
      const k = ev.events.filter(mine).length;
      await call('POST', '/message/delete', A.token, { ids: [m.id] });
      await waitUntil('the delete', () => ev.events.filter(mine).length > k);
      // another tenant hears nothing of it
      expect(other.events.filter((e) => e.type === 'message')).toEqual([]);
    } finally {
      ev.close();
      other.close();
      await node2.stop();
    }
  });

  it('sends the buyer a message when a paid order is fulfilled', async () => {
    const staff = (await h.login('admin', ADMIN_PASSWORD)).token;
    const pkg = await call('POST', '/order/package/create', staff, {
      name: `P ${randomUUID().slice(0, 6)}`,
      dataMb: 1024,
      validityDays: 30,
      priceFen: 990,
      onShelf: true,
    });
    expect(pkg.statusCode, pkg.body).toBe(200);
    const o = await call('POST', '/order/create', A.token, {
      clientRequestId: randomUUID(),
      lines: [{ iccid: specs[0].iccid, packageId: pkg.body_.data.id }],
    });
    expect(o.statusCode, o.body).toBe(200);
    const { rows } = await sql<{
      value: string;
    }>`select value from app_settings where key = 'sandbox_pay_secret'`.execute(h.db);
    const g = new SandboxGateway(rows[0].value, undefined);
    const params = g.notification(
      {
        orderNo: o.body_.data.orderNo,
        tenantId: A.tenantId,
        totalFen: o.body_.data.totalFen,
        subject: 'test',
        exp: Date.now() + 600_000,
        notifyUrl: `${base}/pay/notify/sandbox`,
        lang: 'en',
      },
      'pay',
    );
    // delivered twice: one message
    for (let i = 0; i < 2; i++) {
      const res = await h.call({
        method: 'POST',
        url: '/pay/notify/sandbox',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(params).toString(),
      });
      expect(res.body).toBe('success');
    }
    const paid = await list(A.token, '?group=order&keyword=' + o.body_.data.orderNo);
    expect(paid.list).toMatchObject([
      {
        kind: 'order.fulfilled',
        title: 'Order paid: data added to your SIMs',
        link: `/flowRate/flowRateLog?orderNo=${o.body_.data.orderNo}`,
      },
    ]);
    expect(paid.total).toBe(1);
  });

  it('gives SIM alerts their link to the traffic query of that SIM', async () => {
    const iccid = specs[2].iccid;
    await h.db.updateTable('sims').set({ plan_total_mb: 100, used_mb: 95 }).where('iccid', '=', iccid).execute();
    await sweepSims(h.db, { publish: () => {} });
    const [alert] = (await list(A.token, `?group=sim&keyword=${iccid}`)).list;
    expect(alert).toMatchObject({
      kind: 'sim.low',
      title: 'SIM data running low',
      link: `/flowRate/flowRateSearch?keyword=${iccid}`,
    });
  });

  it('sends one message per fault episode of a device to those who see it', async () => {
    const viewer = await subAccountWith(h, A.tenantId, [PERMISSIONS.deviceView]);
    const blind = await subAccountWith(h, A.tenantId, [PERMISSIONS.flowRateView]);
    const published: Array<{ tenantId: number | null | undefined; event: LiveEvent }> = [];
    const sink: EventSink = { publish: (tenantId, event) => published.push({ tenantId, event }) };
    const presence = new Presence(h.db, sink, { heartbeatS: 30, telemetrySampleS: 60, bus: faultBus(h.db, sink) });
    const id = deviceIds.get(specs[1].sn)!;
    await h.db.updateTable('devices').set({ name: 'Front desk' }).where('id', '=', id).execute();
    const faults = async (token: string) => (await list(token, '?group=device')).list;
    const before = (await faults(A.token)).length;

    await presence.status(id, { paper: 'ok' });
    await presence.status(id, { paper: 'out' });
    // the same episode: still out, a battery change, then another fault before it is fixed
    await presence.status(id, { paper: 'out', battery: 40 });
    await presence.status(id, { paper: 'cover-open' });
    const mainAccount = await faults(A.token);
    expect(mainAccount.length).toBe(before + 1);
    expect(mainAccount[0]).toMatchObject({
      title: 'Printer out of paper',
      link: `/device/detail?id=${id}`,
    });
    expect((await list(viewer, '?group=device')).list).toMatchObject([
      { title: 'Printer out of paper', kind: 'device.fault' },
    ]);
    expect((await list(blind, '?group=device')).total).toBe(0);
    expect((await list(B.token, '?group=device')).total).toBe(0);
    expect(published.filter((p) => p.event.type === 'message' && p.tenantId === A.tenantId)).toHaveLength(2);

    // fixed, then a new episode: a new message; a device that says hello still out of paper adds none
    await presence.status(id, { paper: 'ok' });
    await presence.status(id, { paper: 'overheat' });
    await presence.hello(id, { conn: 'c1', fw: '1.0', paper: 'overheat' });
    const after = await faults(A.token);
    expect(after.length).toBe(before + 2);
    expect(after[0].title).toBe('Printer overheating');
    const zh = await call('GET', '/message/getList?group=device', A.token, undefined, 'zh');
    expect(zh.body_.data.list[0].title).toBe('打印机过热');
  });

  it("writes reports of many devices together, each device's in its order: no fault episode is lost", async () => {
    const sink: EventSink = { publish: () => {} };
    const presence = new Presence(h.db, sink, {
      heartbeatS: 30,
      telemetrySampleS: 60,
      reportWindowMs: 20,
      bus: faultBus(h.db, sink),
    });
    const id = deviceIds.get(specs[2].sn)!;
    const others = specs.filter((_, i) => i !== 2).map((s) => deviceIds.get(s.sn)!);
    await presence.status(id, { paper: 'ok' });
    const faults = async () => (await list(A.token, '?group=device')).list;
    const before = (await faults()).length;
    // all at once: out, fixed, overheating, for this device; battery changes for the others
    const sent = [
      presence.status(id, { paper: 'out' }),
      ...others.map((o, i) => presence.status(o, { battery: 10 + i })),
      presence.status(id, { paper: 'ok' }),
      ...others.map((o) => presence.location(o, { lat: 31.23, lng: 121.47 })),
      presence.status(id, { paper: 'overheat', battery: 7 }),
    ];
    await Promise.all(sent);
    // two episodes began (out, then overheating after the fix), in shared transactions
    const after = await faults();
    expect(after.length).toBe(before + 2);
    expect(after.slice(0, 2).map((m: { title: string }) => m.title)).toEqual([
      'Printer overheating',
      'Printer out of paper',
    ]);
    expect(presence.reports.stats.groups).toBeLessThan(sent.length);
    const row = await h.db
      .selectFrom('devices')
      .select(['paper', 'battery'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ paper: 'overheat', battery: 7 });
    const moved = await h.db
      .selectFrom('devices')
      .select(['lat', 'battery', 'province'])
      .where('id', 'in', others)
      .orderBy('id')
      .execute();
    expect(moved.every((m) => m.lat === 31.23 && m.province !== '')).toBe(true);
  });

  it('writes devices gone offline together, each only if still on the connection it names', async () => {
    const published: number[] = [];
    const presence = new Presence(
      h.db,
      { publish: (_t, e) => published.push(Number((e.data as { id: number }).id)) },
      { heartbeatS: 30, telemetrySampleS: 60 },
    );
    const all = specs.map((s) => deviceIds.get(s.sn)!);
    for (const [i, id] of all.entries()) {
      await h.db
        .updateTable('devices')
        .set({ status: 'online', conn_id: `gone-${i}` })
        .where('id', '=', id)
        .execute();
    }
    const logged = async () =>
      Number(
        (
          await h.db
            .selectFrom('device_status_log')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('device_id', 'in', all)
            .where('reason', '=', 'broker restart')
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await logged();
    // all at once, and one naming an old connection of the first device
    const answers = await Promise.all([
      ...all.map((id, i) => presence.offline(id, `gone-${i}`, 'broker restart')),
      presence.offline(all[0], 'an-older-connection', 'broker restart'),
    ]);
    expect(answers).toEqual([...all.map(() => true), false]);
    expect(presence.offlines.stats.groups).toBeLessThan(answers.length);
    const rows = await h.db.selectFrom('devices').select(['status', 'connected_at']).where('id', 'in', all).execute();
    expect(rows.every((r) => r.status === 'offline' && r.connected_at === null)).toBe(true);
    expect((await logged()) - before).toBe(all.length);
    expect(published.sort()).toEqual([...all].sort());
  });

  it('mails each message once, by the periodic job, to users with an address (the outbox by default)', async () => {
    const mail = `a-${randomUUID().slice(0, 6)}@example.com`;
    await h.db.updateTable('users').set({ email: mail }).where('id', '=', aId).execute();
    await send([
      {
        tenantId: A.tenantId,
        userId: aId,
        kind: 'sim.low',
        title: 'flowRate.lowTitle',
        body: 'ICCID 1234',
        link: '/flowRate/flowRateSearch?keyword=1234',
      },
      { tenantId: B.tenantId, userId: bId, kind: 'sim.low', title: 'flowRate.lowTitle', body: 'no address' },
    ]);
    const mine = () => readMailOutbox(h.dataDir).filter((m) => m.to === mail);
    await waitUntil('the mail in the outbox', () => mine().some((m) => m.text.includes('ICCID 1234')));
    const got = mine().find((m) => m.text.includes('ICCID 1234'))!;
    expect(got).toMatchObject({ subject: '流量卡流量不足', from: h.config.MAIL_FROM });
    expect(got.text).toContain('/flowRate/flowRateSearch?keyword=1234');
    // more runs, also concurrent ones (other nodes), mail nothing again
    const extra = new InboxMailer(h.db, { dataDir: h.dataDir, from: 'x@example.com' }, pino({ level: 'silent' }));
    await Promise.all([extra.run(), extra.run(), extra.run()]);
    await new Promise((r) => setTimeout(r, 500));
    const ids = readMailOutbox(h.dataDir).map((m) => m.messageId);
    expect(new Set(ids).size).toBe(ids.length);
    // B has no address: skipped, never mailed
    const states = await h.db
      .selectFrom('messages')
      .select(['user_id', 'mail_state', 'mailed_at'])
      .where('user_id', 'in', [aId, bId])
      .where('body', 'in', ['ICCID 1234', 'no address'])
      .execute();
    expect(states.find((s) => s.user_id === aId)).toMatchObject({ mail_state: 'sent', mailed_at: expect.any(Date) });
    expect(states.find((s) => s.user_id === bId)).toMatchObject({ mail_state: 'skipped', mailed_at: null });
    // messages inserted by bulk SQL (SIM alerts) are mailed too
    await sql`insert into messages (tenant_id, user_id, kind, title, body) values (${A.tenantId}, ${aId}, 'sim.expired', 'SIM plan expired', 'BULK-1')`.execute(
      h.db,
    );
    await waitUntil('the bulk message mailed', () => mine().some((m) => m.text.includes('BULK-1')));
    expect(mine().filter((m) => m.text.includes('BULK-1'))).toHaveLength(1);
  });
});

describe('mail through an SMTP server', () => {
  let h: Harness;
  let smtp: SMTPServer;
  let port: number;
  const received: Array<{ from: string; to: string[]; data: string; user?: string }> = [];
  let refuse = false;

  beforeAll(async () => {
    // the periodic job stays out of the way: the test runs the mailer itself
    h = await createHarness({ MAIL_INTERVAL_MS: '3600000' });
    smtp = new SMTPServer({
      authOptional: false,
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth(auth, _session, cb) {
        if (!refuse && auth.username === 'mailer' && auth.password === 'p@ss w0rd') cb(null, { user: 'mailer' });
        else cb(new Error('Invalid username or password'));
      },
      onData(stream, session, cb) {
        let data = '';
        stream.on('data', (c: Buffer) => (data += c.toString('utf8')));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            data,
            user: String(session.user),
          });
          cb();
        });
      },
    });
    await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
    port = (smtp.server.address() as AddressInfo).port;
  }, 60_000);
  afterAll(async () => {
    await new Promise<void>((r) => smtp?.close(() => r()));
    await h?.close();
  });

  it('sends each pending message once over SMTP, and keeps the password out of the logs', async () => {
    const c = await customer(h);
    const uid = (
      await h.db.selectFrom('users').select('id').where('username', '=', c.username).executeTakeFirstOrThrow()
    ).id;
    await h.db.updateTable('users').set({ email: 'buyer@example.com' }).where('id', '=', uid).execute();
    const url = `smtp://mailer:${encodeURIComponent('p@ss w0rd')}@127.0.0.1:${port}`;
    let logged = '';
    const log = pino(
      { level: 'info' },
      new Writable({
        write(chunk, _enc, cb) {
          logged += String(chunk);
          cb();
        },
      }),
    );
    const mailer = new InboxMailer(
      h.db,
      {
        smtpUrl: url,
        from: 'Cloud Print <no-reply@print.example.com>',
        dataDir: h.dataDir,
        publicUrl: 'https://print.example.com',
      },
      log,
    );
    const announce = await sendMessages(h.db, [
      {
        tenantId: c.tenantId,
        userId: uid,
        kind: 'order.fulfilled',
        title: 'inbox.orderFulfilledTitle',
        body: 'ORDER-SMTP',
        link: '/flowRate/flowRateLog?orderNo=1',
      },
    ]);
    announce(undefined);

    // the server refuses the login: an attempt is counted, the message waits, the password is not logged
    refuse = true;
    expect(await mailer.run()).toMatchObject({ sent: 0, failed: 1 });
    const waiting = await h.db
      .selectFrom('messages')
      .select(['mail_state', 'mail_attempts'])
      .where('body', '=', 'ORDER-SMTP')
      .executeTakeFirstOrThrow();
    expect(waiting).toEqual({ mail_state: 'pending', mail_attempts: 1 });
    expect(logged).toContain('inbox: mail failed');
    expect(logged).not.toContain('p@ss');
    expect(logged).not.toContain(encodeURIComponent('p@ss w0rd'));

    refuse = false;
    expect(await mailer.run()).toMatchObject({ sent: 1, failed: 0 });
    expect(await mailer.run()).toMatchObject({ sent: 0 });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      from: 'no-reply@print.example.com',
      to: ['buyer@example.com'],
      user: 'mailer',
    });
    // the body is quoted-printable UTF-8
    const text = Buffer.from(
      received[0].data
        .split(/\r?\n\r?\n/)
        .slice(1)
        .join('\n\n')
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
    expect(text).toContain('在控制台中查看：https://print.example.com/flowRate/flowRateLog?orderNo=1');
    expect(text).toContain('ORDER-SMTP');
    expect(readMailOutbox(h.dataDir)).toEqual([]);
    mailer.close();
  });
});
