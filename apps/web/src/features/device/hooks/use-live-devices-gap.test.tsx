import type { ReactNode } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderHook, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { DETAIL_KEY, DEVICE_KEY, LIST_KEY, MAP_KEY } from '../api/devices';
import { GROUP_TREE_KEY } from '../api/groups';
import { BATCHES_KEY, TASKS_KEY } from '../api/tasks';
import { useLiveDevices } from './use-live-devices';

vi.mock('@/lib/request', async (original) => ({
  ...(await original<typeof import('@/lib/request')>()),
  post: vi.fn(async () => ({ ticket: 'ticket-1' })),
}));
vi.mock('@/lib/session', async (original) => ({
  ...(await original<typeof import('@/lib/session')>()),
  getToken: () => 'token',
}));

/** The browser's EventSource, driven by the test. */
class FakeSource {
  static all: FakeSource[] = [];
  readyState = 0;
  onopen: ((ev: Event) => unknown) | null = null;
  onerror: ((ev: Event) => unknown) | null = null;
  private listeners = new Map<string, Array<(ev: MessageEvent) => void>>();
  constructor(readonly url: string) {
    FakeSource.all.push(this);
  }
  addEventListener(type: string, listener: (ev: MessageEvent) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  close() {
    this.readyState = 2;
  }
  open() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  emit(type: string, data: unknown, lastEventId: string) {
    for (const l of this.listeners.get(type) ?? [])
      l(new MessageEvent(type, { data: JSON.stringify(data), lastEventId }));
  }
}

beforeEach(() => vi.stubGlobal('EventSource', FakeSource));
afterEach(() => {
  vi.unstubAllGlobals();
  FakeSource.all = [];
});

const live = [
  [...LIST_KEY, { pageNo: 1, pageSize: 20 }],
  [...DETAIL_KEY, 1],
  [...MAP_KEY, {}],
  [...TASKS_KEY, { deviceId: 1, pageNo: 1, pageSize: 10 }],
  [...BATCHES_KEY, { pageNo: 1 }],
  [...GROUP_TREE_KEY],
];

function setup() {
  const client = new QueryClient();
  for (const key of live) client.setQueryData(key, { list: [], total: 0 });
  // the model options and other sections do not follow live events
  client.setQueryData([...DEVICE_KEY, 'models'], []);
  client.setQueryData(['notice', 'list'], { list: [], total: 0 });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={client}>{children}</QueryClientProvider>
  );
  const view = renderHook(() => useLiveDevices(), { wrapper });
  return { client, view };
}

// a device none of the cached data holds: its event changes nothing by itself
const unknownDevice = {
  id: 99,
  sn: 'X',
  status: 'online',
  paper: 'ok',
  battery: null,
  signal: null,
  firmware: '',
  lastSeenAt: null,
  connectedAt: null,
  lat: null,
  lng: null,
  province: '',
};
const invalidated = (client: QueryClient, key: readonly unknown[]) => client.getQueryState(key)!.isInvalidated;

describe('a gap in the live events', () => {
  it.each([
    ['the server says resync', (s: FakeSource) => s.emit('resync', { reason: 'listen-lost' }, '2')],
    ['an event number is skipped', (s: FakeSource) => s.emit('device', unknownDevice, '3')],
  ])('has the device lists, details, map, tasks, batches and groups read again when %s', async (_, gap) => {
    const { client, view } = setup();
    onTestFinished(() => view.unmount());
    await waitFor(() => expect(FakeSource.all).toHaveLength(1));
    const source = FakeSource.all[0];
    source.open();
    source.emit('device', unknownDevice, '1');
    // the first opening and events in sequence read nothing again
    for (const key of live) expect(invalidated(client, key), JSON.stringify(key)).toBe(false);

    gap(source);
    for (const key of live) expect(invalidated(client, key), JSON.stringify(key)).toBe(true);
    expect(invalidated(client, [...DEVICE_KEY, 'models'])).toBe(false);
    expect(invalidated(client, ['notice', 'list'])).toBe(false);
  });
});
