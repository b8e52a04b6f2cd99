import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { Writable } from 'node:stream';
import { sql, type KyselyPlugin } from 'kysely';
import pino from 'pino';
import type { LiveEvent, LiveTaskEvent } from '@cpc/contracts';
import {
  LiveEvents,
  MAX_PAYLOAD_BYTES,
  encodePayloads,
  splitUtf8,
  type StreamEvent,
} from '../src/plugins/live-events.ts';
import { createHarness, type Harness } from './harness.ts';
import { customer, openEvents, waitUntil, type Customer } from './device-helpers.ts';

/** Live events across nodes (LISTEN/NOTIFY) and to consoles (SSE): nothing over the byte limit, nothing lost unseen. */
let h: Harness;
let c: Customer;
let base: string;
const nodes: LiveEvents[] = [];

interface Logged {
  level: number;
  msg: string;
  [k: string]: unknown;
}

/** A node's LiveEvents on the harness's database, its log kept; `db` lets a test put a fault in its way. */
async function node(db = h.db, listen = true) {
  const logs: Logged[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const events = new LiveEvents(db, h.config.DATABASE_URL, pino({ level: 'debug' }, sink));
  if (listen) await events.start();
  nodes.push(events);
  return { events, logs };
}

/** Everything a subscriber of the tenant receives on a node. */
function collect(events: LiveEvents, tenantId: number) {
  const got: StreamEvent[] = [];
  events.subscribe(tenantId, (e) => got.push(e));
  return got;
}

interface Frame {
  id: number;
  type: string;
  data: any;
}

/** The console's event stream read over real HTTP, each frame with its `id:`. */
async function openStream(token: string) {
  const stream = await openEvents(h, base, token);
  return { frames: stream.events as unknown as Frame[], close: stream.close };
}

const HAN = '打印机缺纸请检查纸仓盖是否关闭后重试'; // 18 characters, 3 bytes each in UTF-8
const task = (i: number, chars: number): LiveTaskEvent => ({
  id: `t-${i}`,
  deviceId: 1,
  batchId: null,
  type: 'reboot',
  state: 'failed',
  progress: 0,
  stage: '',
  // quotes, backslashes and line breaks too: they pass through JSON and PostgreSQL's array syntax on the way
  error: `${i}:"\\\n${HAN.repeat(Math.ceil(chars / HAN.length)).slice(0, chars)}`,
});

beforeAll(async () => {
  h = await createHarness();
  c = await customer(h);
  base = await h.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  for (const n of nodes) await n.stop();
  await h.close();
});

describe('NOTIFY payloads', () => {
  it('are cut by UTF-8 bytes, never inside a character', () => {
    const text = `a${'中文🖨️é'.repeat(600)}z`;
    for (const max of [4, 5, 7, 100, 7700]) {
      const pieces = splitUtf8(text, max);
      expect(pieces.join('')).toBe(text);
      for (const p of pieces) {
        expect(Buffer.byteLength(p)).toBeLessThanOrEqual(max);
        // a cut inside a character would decode as U+FFFD
        expect(p).not.toContain('\uFFFD');
      }
    }
  });

  it('stay under the limit PostgreSQL sets, header included', () => {
    const body = JSON.stringify([[1, 'task', task(0, 9000)]]);
    expect(Buffer.byteLength(body)).toBeGreaterThan(8000 * 3);
    const payloads = encodePayloads('abcdef012345', 99_999_999, [body]);
    expect(payloads.length).toBeGreaterThan(3);
    for (const p of payloads) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
  });
});

describe('a burst of events with long Chinese texts', () => {
  it('arrives whole and in order at another node and at a console connected to a third', async () => {
    const other = collect((await node()).events, c.tenantId);
    const stream = await openStream(c.token);
    const origin = await node(h.db, false);
    try {
      // 30 tasks of 300 characters (about 900 bytes each) and one of 4,000 (12,000 bytes): 39 KB in all
      const sent: LiveEvent[] = [];
      for (let i = 0; i < 31; i++) sent.push({ type: 'task', data: task(i, i === 17 ? 4000 : 300) });
      expect(Buffer.byteLength(JSON.stringify(sent[17].data))).toBeGreaterThan(8000);
      expect(Buffer.byteLength(JSON.stringify(sent))).toBeGreaterThan(16_000);
      // the stream subscribes when its request is handled: wait until a first event gets through to it
      origin.events.publish(c.tenantId, { type: 'task', data: task(-1, 1) });
      await origin.events.flush();
      await waitUntil('the stream to be live', () => stream.frames.some((f) => f.data.id === 't--1'));
      for (const e of sent) origin.events.publish(c.tenantId, e);
      await origin.events.flush();

      const last = (list: { type: string; data: any }[]) => list.some((e) => e.type === 'task' && e.data.id === 't-30');
      await waitUntil('the burst at the other node', () => last(other));
      await waitUntil('the burst at the console', () => last(stream.frames));
      expect(other.filter((e) => e.data && (e.data as LiveTaskEvent).id !== 't--1')).toEqual(sent);
      const frames = stream.frames.filter((f) => f.data.id !== 't--1');
      expect(frames.map((f) => ({ type: f.type, data: f.data }))).toEqual(sent);
      // numbered one after the other on the stream
      expect(stream.frames.map((f) => f.id)).toEqual(stream.frames.map((_, i) => i + 1));
      expect(origin.logs.filter((l) => l.level >= 40)).toEqual([]);
    } finally {
      stream.close();
    }
  });
});

describe('a NOTIFY that fails', () => {
  it('is logged with what was lost, and every console is told to resync', async () => {
    let fail = false;
    const fault: KyselyPlugin = {
      transformQuery(args) {
        if (fail) throw new Error('connection to the database lost');
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const origin = await node(h.db.withPlugin(fault));
    const here = collect(origin.events, c.tenantId);
    const other = collect((await node()).events, c.tenantId);
    const stream = await openStream(c.token);
    try {
      origin.events.publish(c.tenantId, { type: 'task', data: task(100, 5) });
      await origin.events.flush();
      await waitUntil('the first event at the console', () => stream.frames.some((f) => f.data.id === 't-100'));
      await waitUntil('the first event at the other node', () =>
        other.some((e) => e.type === 'task' && e.data.id === 't-100'),
      );

      fail = true;
      origin.events.publish(c.tenantId, { type: 'task', data: task(101, 2000) });
      origin.events.publish(c.tenantId, { type: 'task', data: task(102, 5) });
      origin.events.publish(c.tenantId, {
        type: 'device',
        data: {
          id: 5,
          sn: 'SN-SECRET-5',
          status: 'online',
          paper: 'ok',
          battery: 1,
          signal: 1,
          firmware: '1',
          lastSeenAt: null,
          connectedAt: null,
          lat: null,
          lng: null,
          province: '',
        },
      });
      await origin.events.flush();
      const entry = origin.logs.find((l) => l.level === 50);
      expect(entry).toMatchObject({
        msg: expect.stringContaining('3 events lost'),
        lost: { events: 3, kinds: { task: 2, device: 1 }, tenants: [c.tenantId] },
      });
      // what was lost is named, not its content
      expect(JSON.stringify(entry)).not.toMatch(/SN-SECRET|打印机/);
      // the node's own consoles are told at once
      expect(here.at(-1)).toEqual({ type: 'resync', data: { reason: 'publish-failed' } });

      // once NOTIFY works again the node's next number shows the others the gap, without waiting for a new event
      fail = false;
      await waitUntil('the resync at the other node', () => other.some((e) => e.type === 'resync'));
      await waitUntil('the resync at the console', () => stream.frames.some((f) => f.type === 'resync'));
      expect(other.find((e) => e.type === 'resync')).toEqual({ type: 'resync', data: { reason: 'missed' } });
      expect(other.some((e) => e.type === 'task' && e.data.id === 't-101')).toBe(false);

      origin.events.publish(c.tenantId, { type: 'task', data: task(103, 5) });
      await origin.events.flush();
      await waitUntil('a later event at the console', () => stream.frames.some((f) => f.data.id === 't-103'));
      expect(stream.frames.map((f) => f.id)).toEqual(stream.frames.map((_, i) => i + 1));
    } finally {
      stream.close();
    }
  });
});

describe('a LISTEN connection that is killed', () => {
  it('comes back and tells its consoles to resync; events flow again', async () => {
    const other = (await node()).events;
    const got = collect(other, c.tenantId);
    const stream = await openStream(c.token);
    const origin = await node(h.db, false);
    try {
      origin.events.publish(c.tenantId, { type: 'task', data: task(200, 5) });
      await origin.events.flush();
      await waitUntil('the stream to be live', () => stream.frames.some((f) => f.data.id === 't-200'));

      const killed = await sql<{ pid: number }>`select pg_terminate_backend(pid), pid from pg_stat_activity
        where datname = current_database() and application_name = 'cpc-live-events'`.execute(h.db);
      expect(killed.rows.length).toBeGreaterThanOrEqual(2);
      await waitUntil('the resync at the console', () => stream.frames.some((f) => f.type === 'resync'));
      await waitUntil('the resync at the other node', () => got.some((e) => e.type === 'resync'));
      expect(stream.frames.find((f) => f.type === 'resync')?.data).toEqual({ reason: 'listen-lost' });

      origin.events.publish(c.tenantId, { type: 'task', data: task(201, 5) });
      await origin.events.flush();
      await waitUntil('an event after the reconnect at the console', () =>
        stream.frames.some((f) => f.data.id === 't-201'),
      );
      await waitUntil('an event after the reconnect at the other node', () =>
        got.some((e) => e.type === 'task' && e.data.id === 't-201'),
      );
    } finally {
      stream.close();
    }
  });
});

describe('a console that stops reading', () => {
  it('is not buffered for without end: its events are skipped, numbers and all, and it is told to resync', async () => {
    const t = await h.call({ method: 'POST', url: '/apiAdmin/device/events/ticket', token: c.token });
    const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http
        .get(`${base}/apiAdmin/device/events?ticket=${encodeURIComponent(t.body_.data.ticket)}`, resolve)
        .on('error', reject),
    );
    res.pause();
    // a console that reads, on the same node: once it has the last event, the paused one has been sent them all
    const reading = await openStream(c.token);
    const origin = await node(h.db, false);
    // 16 MB of events, more than the socket buffers on both sides and the 1 MB the server keeps for a console
    for (let i = 0; i < 320; i++) origin.events.publish(c.tenantId, { type: 'task', data: task(1000 + i, 17_000) });
    await origin.events.flush();
    await waitUntil(
      'the last event at the reading console',
      () => reading.frames.some((f) => f.data.id === 't-1319'),
      100_000,
    );
    reading.close();
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.resume();
    await waitUntil('the resync', () => text.includes('event: resync'));
    res.destroy();
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    const tasks = [...text.matchAll(/^event: task$/gm)].length;
    expect(tasks).toBeGreaterThan(0);
    expect(tasks).toBeLessThan(320);
    expect(text).toContain('event: resync\ndata: {"reason":"missed"}');
    // numbers keep counting over the skipped events: the console sees the gap even before the resync
    const resyncId = Number(/^id: (\d+)\nevent: resync$/m.exec(text)![1]);
    expect(resyncId).toBe(321);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids.length).toBeLessThan(321);
    // 16 MB through NOTIFY and two streams: seconds on a quiet machine, more on a loaded CI run
  }, 120_000);
});
