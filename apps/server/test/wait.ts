// Free of the harness (and of its types), so the browser tests can poll with it too.

/** Polls until `fn` answers something truthy; fails with `what` after the timeout. */
export async function waitUntil<T>(
  what: string,
  fn: () => Promise<T> | T,
  timeoutMs = 20_000,
): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
