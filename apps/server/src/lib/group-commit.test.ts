import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GroupCommit } from './group-commit.ts';

/** Entries: a name, urgent unless it starts with "lazy". Each flush is recorded with the entries it wrote. */
function harness(opts: { windowMs: number; lazyWindowMs?: number; max?: number }) {
  const groups: string[][] = [];
  const gc = new GroupCommit<string, string>({
    ...opts,
    max: opts.max ?? 100,
    urgent: (s) => !s.startsWith('lazy'),
    flush: async (xs) => {
      groups.push([...xs]);
      return xs.map((x) => `ok ${x}`);
    },
    single: async (x) => {
      groups.push([x]);
      return `ok ${x}`;
    },
  });
  return { gc, groups };
}

describe('GroupCommit windows', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('lets entries nobody waits on wait the lazy window, so ones arriving apart share a commit', async () => {
    const { gc, groups } = harness({ windowMs: 5, lazyWindowMs: 50 });
    for (let i = 0; i < 4; i++) {
      void gc.add(`lazy-${i}`);
      await vi.advanceTimersByTimeAsync(10);
    }
    // 40 ms after the first: still waiting for company
    expect(groups).toEqual([]);
    await vi.advanceTimersByTimeAsync(15);
    expect(groups).toEqual([['lazy-0', 'lazy-1', 'lazy-2', 'lazy-3']]);
  });

  it('writes an urgent entry within its own window, taking the waiting lazy ones with it', async () => {
    const { gc, groups } = harness({ windowMs: 5, lazyWindowMs: 50 });
    void gc.add('lazy-a');
    await vi.advanceTimersByTimeAsync(20);
    const answered = gc.add('result');
    await vi.advanceTimersByTimeAsync(6);
    expect(groups).toEqual([['lazy-a', 'result']]);
    await expect(answered).resolves.toBe('ok result');
  });

  it('writes urgent entries after the short window as before when no lazy window is set', async () => {
    const { gc, groups } = harness({ windowMs: 5 });
    void gc.add('lazy-x');
    await vi.advanceTimersByTimeAsync(6);
    expect(groups).toEqual([['lazy-x']]);
  });

  it('holds lazy entries that arrive during a flush for their window, and sends urgent ones at once', async () => {
    let release!: () => void;
    const groups: string[][] = [];
    const gc = new GroupCommit<string, void>({
      windowMs: 0,
      lazyWindowMs: 50,
      max: 100,
      urgent: (s) => !s.startsWith('lazy'),
      flush: async (xs) => {
        groups.push([...xs]);
        if (xs.includes('slow')) await new Promise<void>((r) => (release = r));
        return xs.map(() => undefined);
      },
      single: async (x) => {
        groups.push([x]);
        if (x === 'slow') await new Promise<void>((r) => (release = r));
      },
    });
    void gc.add('slow');
    await vi.advanceTimersByTimeAsync(1);
    void gc.add('lazy-during');
    release();
    await vi.advanceTimersByTimeAsync(1);
    // the lazy entry waits for company after the flush
    expect(groups).toEqual([['slow']]);
    void gc.add('urgent-after');
    await vi.advanceTimersByTimeAsync(1);
    expect(groups).toEqual([['slow'], ['lazy-during', 'urgent-after']]);
  });

  it('drain writes what waits at once', async () => {
    const { gc, groups } = harness({ windowMs: 5, lazyWindowMs: 1000 });
    void gc.add('lazy-1');
    void gc.add('lazy-2');
    await gc.drain();
    expect(groups).toEqual([['lazy-1', 'lazy-2']]);
  });
});
