import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LiveEvent } from '@cpc/contracts';
import { createLiveEvents, type EventSourceLike, type LiveEventsDeps } from './live-events';

/** An EventSource the test drives: open it, push events, fail it. */
class FakeSource implements EventSourceLike {
  readyState = 0;
  closed = false;
  onopen: EventSourceLike['onopen'] = null;
  onerror: EventSourceLike['onerror'] = null;
  private listeners = new Map<string, Array<(ev: MessageEvent) => void>>();
  constructor(readonly ticket: string) {}
  addEventListener(type: string, listener: (ev: MessageEvent) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  close() {
    this.closed = true;
    this.readyState = 2;
  }
  open() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  emit(type: string, data: unknown, lastEventId = '') {
    for (const l of this.listeners.get(type) ?? [])
      l(new MessageEvent(type, { data: typeof data === 'string' ? data : JSON.stringify(data), lastEventId }));
  }
  fail() {
    this.onerror?.(new Event('error'));
  }
}

const device = {
  id: 7,
  sn: 'SN-0007',
  status: 'online',
  paper: 'ok',
  battery: 80,
  signal: 60,
  firmware: '1.0',
  lastSeenAt: null,
  connectedAt: null,
  lat: null,
  lng: null,
  province: '',
};

function setup(overrides: Partial<LiveEventsDeps> = {}) {
  const sources: FakeSource[] = [];
  let n = 0;
  const ticket = vi.fn(async () => `ticket-${++n}`);
  const client = createLiveEvents({
    ticket,
    open: (t) => {
      const s = new FakeSource(t);
      sources.push(s);
      return s;
    },
    signedIn: () => true,
    backoffMs: () => 1000,
    ...overrides,
  });
  return { client, sources, ticket };
}

const flush = () => vi.advanceTimersByTimeAsync(0);

describe('the live event stream', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('opens one stream with a fresh ticket for every subscriber and hands each the events', async () => {
    const { client, sources, ticket } = setup();
    const a: LiveEvent[] = [];
    const b: LiveEvent[] = [];
    client.subscribe({ onEvent: (e) => a.push(e) });
    client.subscribe({ onEvent: (e) => b.push(e) });
    await flush();
    expect(sources).toHaveLength(1);
    expect(sources[0].ticket).toBe('ticket-1');
    expect(ticket).toHaveBeenCalledTimes(1);
    sources[0].open();
    expect(client.status()).toBe('open');
    sources[0].emit('device', device);
    sources[0].emit('task', {
      id: 't1',
      deviceId: 7,
      batchId: null,
      type: 'reboot',
      state: 'sent',
      progress: 0,
      error: '',
    });
    sources[0].emit('device', 'not json');
    expect(a.map((e) => e.type)).toEqual(['device', 'task']);
    expect(b).toEqual(a);
    expect(a[0].data).toEqual(device);
  });

  it('reconnects with a new ticket after the stream drops, and tells subscribers it is open again', async () => {
    const { client, sources } = setup();
    const opened = vi.fn();
    client.subscribe({ onEvent: () => undefined, onOpen: opened });
    await flush();
    sources[0].open();
    expect(opened).toHaveBeenCalledTimes(1);
    sources[0].fail();
    expect(sources[0].closed).toBe(true);
    expect(client.status()).toBe('retrying');
    await vi.advanceTimersByTimeAsync(1000);
    expect(sources).toHaveLength(2);
    expect(sources[1].ticket).toBe('ticket-2');
    sources[1].open();
    expect(opened).toHaveBeenCalledTimes(2);
    // the old stream is dead: anything it still says is ignored
    const got: LiveEvent[] = [];
    client.subscribe({ onEvent: (e) => got.push(e) });
    sources[0].emit('device', device);
    expect(got).toEqual([]);
  });

  it('tells subscribers of a gap when the server says resync or skips a number, not while numbers follow on', async () => {
    const { client, sources } = setup();
    const got: LiveEvent[] = [];
    const gap = vi.fn();
    client.subscribe({ onEvent: (e) => got.push(e), onGap: gap });
    await flush();
    sources[0].open();
    sources[0].emit('device', device, '1');
    sources[0].emit('device', device, '2');
    expect(gap).not.toHaveBeenCalled();
    sources[0].emit('resync', { reason: 'listen-lost' }, '3');
    expect(gap).toHaveBeenCalledTimes(1);
    sources[0].emit('device', device, '4');
    expect(gap).toHaveBeenCalledTimes(1);
    // event 5 never came: the event that did is still applied, and the lists are read again
    sources[0].emit(
      'task',
      { id: 't1', deviceId: 7, batchId: null, type: 'reboot', state: 'sent', progress: 0, error: '' },
      '6',
    );
    expect(gap).toHaveBeenCalledTimes(2);
    expect(got.map((e) => e.type)).toEqual(['device', 'device', 'device', 'task']);

    // a new stream numbers from 1 again; its opening is the subscriber's cue, not a gap
    sources[0].fail();
    await vi.advanceTimersByTimeAsync(1000);
    sources[1].open();
    sources[1].emit('device', device, '1');
    expect(gap).toHaveBeenCalledTimes(2);
    // a dead stream's resync is ignored
    sources[0].emit('resync', { reason: 'missed' }, '7');
    expect(gap).toHaveBeenCalledTimes(2);
  });

  it('keeps trying when the ticket cannot be had', async () => {
    let calls = 0;
    const { client, sources } = setup({
      ticket: async () => {
        if (++calls < 3) throw new Error('server down');
        return 'late-ticket';
      },
    });
    client.subscribe({ onEvent: () => undefined });
    await flush();
    expect(sources).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(2000);
    expect(sources.map((s) => s.ticket)).toEqual(['late-ticket']);
  });

  it('closes when the last subscriber leaves and on logout, and stays closed without a session', async () => {
    let signedIn = true;
    const { client, sources } = setup({ signedIn: () => signedIn });
    const leave = client.subscribe({ onEvent: () => undefined });
    await flush();
    leave();
    expect(sources[0].closed).toBe(true);
    expect(client.status()).toBe('idle');

    client.subscribe({ onEvent: () => undefined });
    await flush();
    sources[1].open();
    client.reset();
    expect(sources[1].closed).toBe(true);
    expect(client.status()).toBe('idle');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sources).toHaveLength(2);

    signedIn = false;
    client.subscribe({ onEvent: () => undefined });
    await flush();
    expect(sources).toHaveLength(2);
  });

  it('does not open a stream whose ticket arrived after everyone left', async () => {
    let release!: (t: string) => void;
    const { client, sources } = setup({ ticket: () => new Promise<string>((r) => (release = r)) });
    const leave = client.subscribe({ onEvent: () => undefined });
    await flush();
    leave();
    release('too-late');
    await flush();
    expect(sources).toHaveLength(0);
  });
});
