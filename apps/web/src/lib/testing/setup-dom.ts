import { afterAll, afterEach, beforeAll } from 'vitest';
import { clearStaticMessages } from '../feedback';
import { loadServerMessages } from '../server-messages';

// the server's message catalogue is a chunk the console loads ahead; the tests have it from the start
beforeAll(async () => {
  await loadServerMessages();
});

// Node 20's require(esm) can fail with "Cannot read properties of undefined (reading 'getStatus')" when a CommonJS
// module requires an ES module that a dynamic import() is still loading (nodejs/node#59366); the ten frames V8
// keeps by default end inside Node's loader, so keep enough to name the module that required it
Error.stackTraceLimit = 50;

const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

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
afterEach(async () => {
  if (!(await clearStaticMessages())) return;
  // jsdom never ends a CSS transition, so a closing message would stay mounted with its 3 s close timer running
  // past the file's teardown; end each leave motion as a browser would once it reaches its active step (a frame)
  for (let i = 0; i < 30 && document.querySelector('.ant-message-notice'); i++) {
    await tick(16);
    for (const el of document.querySelectorAll('[class*="-leave-active"]'))
      el.dispatchEvent(new Event('transitionend'));
  }
});

afterAll(async () => {
  for (let i = 0; i < 5; i++) await tick(20);
});
