import { CHUNK_TIMEOUT } from '../config/settings';

/** A page's code did not arrive in time (SPEC §8: chunk-load error after 120 s). */
export class ChunkLoadError extends Error {
  override name = 'ChunkLoadError';
}

/** Wraps a dynamic import so a hanging download fails instead of spinning forever. */
export function withChunkTimeout<T>(load: () => Promise<T>, ms: number = CHUNK_TIMEOUT): () => Promise<T> {
  return () =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new ChunkLoadError(`loading chunk timed out after ${ms} ms`)), ms);
      load().then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(
            error instanceof Error && error.name !== 'ChunkLoadError'
              ? Object.assign(new ChunkLoadError(error.message), { cause: error })
              : error,
          );
        },
      );
    });
}
