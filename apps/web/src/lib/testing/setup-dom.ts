import { afterAll } from 'vitest';

/**
 * Browser APIs antd relies on that jsdom does not implement. Inert stand-ins: tests that care about
 * layout or media queries set their own.
 */
if (typeof window !== 'undefined') {
  window.matchMedia ??= ((query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
    addListener: () => undefined,
    removeListener: () => undefined,
    dispatchEvent: () => false,
  })) as typeof window.matchMedia;

  globalThis.ResizeObserver ??= class {
    observe(): void {}
    unobserve(): void {}
    disconnect(): void {}
  };
}

/**
 * React may still have work queued when a file's last test ends (an antd animation's timer setting state after
 * its unmount); run it while jsdom's window still exists, instead of letting it fail after the teardown.
 */
afterAll(async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 20));
});
