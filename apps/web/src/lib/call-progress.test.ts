import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { CALL_PROGRESS_DELAY, createCallProgress, type ProgressBar } from './call-progress';

let bar: { start: Mock<() => void>; done: Mock<() => void> } & ProgressBar;
beforeEach(() => {
  vi.useFakeTimers();
  bar = { start: vi.fn<() => void>(), done: vi.fn<() => void>() };
});
afterEach(() => vi.useRealTimers());

const deferred = () => {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
};

describe('call progress', () => {
  it('shows nothing for a call that settles quickly', async () => {
    const p = createCallProgress(() => bar);
    const call = deferred();
    const tracked = p.track(call.promise);
    vi.advanceTimersByTime(CALL_PROGRESS_DELAY - 1);
    call.resolve();
    await tracked;
    vi.advanceTimersByTime(CALL_PROGRESS_DELAY * 2);
    expect(bar.start).not.toHaveBeenCalled();
    expect(bar.done).not.toHaveBeenCalled();
  });

  it('starts the bar for a long call and ends it when the call settles', async () => {
    const p = createCallProgress(() => bar);
    const call = deferred();
    const tracked = p.track(call.promise);
    vi.advanceTimersByTime(CALL_PROGRESS_DELAY);
    expect(bar.start).toHaveBeenCalledTimes(1);
    call.resolve();
    await tracked;
    expect(bar.done).toHaveBeenCalledTimes(1);
  });

  it('shows one bar for overlapping calls and ends it with the last, failures included', async () => {
    const p = createCallProgress(() => bar);
    const a = deferred();
    const b = deferred();
    const ta = p.track(a.promise);
    const tb = p.track(b.promise).catch(() => undefined);
    vi.advanceTimersByTime(CALL_PROGRESS_DELAY);
    expect(bar.start).toHaveBeenCalledTimes(1);
    a.resolve();
    await ta;
    expect(bar.done).not.toHaveBeenCalled();
    expect(p.pending()).toBe(1);
    b.reject(new Error('failed'));
    await tb;
    expect(bar.done).toHaveBeenCalledTimes(1);
    expect(p.pending()).toBe(0);
  });

  it('starts the bar at once for a page loading, and keeps one bar while calls overlap it', async () => {
    const p = createCallProgress(() => bar);
    const call = deferred();
    const page = deferred();
    const tracked = p.track(call.promise);
    const loading = p.track(page.promise, true);
    expect(bar.start).toHaveBeenCalledTimes(1);
    // the delayed start of the call does not start a second bar
    vi.advanceTimersByTime(CALL_PROGRESS_DELAY * 2);
    expect(bar.start).toHaveBeenCalledTimes(1);
    page.resolve();
    await loading;
    expect(bar.done).not.toHaveBeenCalled();
    call.resolve();
    await tracked;
    expect(bar.done).toHaveBeenCalledTimes(1);
  });

  it('passes the result and the rejection through untouched', async () => {
    const p = createCallProgress(() => bar);
    await expect(p.track(Promise.resolve(7))).resolves.toBe(7);
    const error = new Error('nope');
    await expect(p.track(Promise.reject(error))).rejects.toBe(error);
  });

  it('shows nothing when the app has no bar (the progress bar setting is off)', async () => {
    const p = createCallProgress(() => null);
    const call = deferred();
    const tracked = p.track(call.promise);
    vi.advanceTimersByTime(CALL_PROGRESS_DELAY);
    call.resolve();
    await expect(tracked).resolves.toBeUndefined();
    expect(p.pending()).toBe(0);
  });

  it('starts afresh after the calls ended', async () => {
    const p = createCallProgress(() => bar);
    for (let round = 1; round <= 2; round++) {
      const call = deferred();
      const tracked = p.track(call.promise);
      vi.advanceTimersByTime(CALL_PROGRESS_DELAY);
      call.resolve();
      await tracked;
      expect(bar.start).toHaveBeenCalledTimes(round);
      expect(bar.done).toHaveBeenCalledTimes(round);
    }
  });

  it('ignores an end without a begin', () => {
    const p = createCallProgress(() => bar);
    p.end();
    expect(p.pending()).toBe(0);
    expect(bar.done).not.toHaveBeenCalled();
  });
});
