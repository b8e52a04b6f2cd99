import { afterEach, describe, expect, it, vi } from 'vitest';
import { CHUNK_TIMEOUT } from '../config/settings';
import { ChunkLoadError, withChunkTimeout } from './lazy-chunk';

afterEach(() => vi.useRealTimers());

describe('withChunkTimeout (SPEC §8, §9: a chunk-load error after 120 s)', () => {
  it('waits 120 s by default, then fails with a ChunkLoadError', async () => {
    expect(CHUNK_TIMEOUT).toBe(120_000);
    vi.useFakeTimers();
    const load = withChunkTimeout(() => new Promise<never>(() => {}));
    const outcome = load().then(
      () => 'loaded',
      (e: unknown) => e,
    );
    await vi.advanceTimersByTimeAsync(CHUNK_TIMEOUT - 1);
    let settled = false;
    void outcome.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const error = await outcome;
    expect(error).toBeInstanceOf(ChunkLoadError);
    expect((error as Error).name).toBe('ChunkLoadError');
  });

  it('answers a chunk that arrives in time, and stops its timer', async () => {
    vi.useFakeTimers();
    const load = withChunkTimeout(() => Promise.resolve({ default: 'page' }));
    await expect(load()).resolves.toEqual({ default: 'page' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('turns a failed download into a ChunkLoadError that keeps its cause', async () => {
    const cause = new TypeError('Failed to fetch dynamically imported module');
    const error = await withChunkTimeout(() => Promise.reject(cause))().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChunkLoadError);
    expect((error as Error).message).toBe(cause.message);
    expect((error as Error & { cause: unknown }).cause).toBe(cause);
  });
});
