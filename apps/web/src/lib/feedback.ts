import type { MessageInstance } from 'antd/es/message/interface';

/**
 * The antd message API used outside React. The console's providers register the one from `App.useApp()` so
 * messages follow the theme and locale. Before that — on the sign-in page, which carries no antd at all
 * (issue 3's first-load budget), and in tests — antd's static API is loaded on the first message.
 */
let current: MessageInstance | null = null;
let fallback: Promise<MessageInstance> | null = null;

const staticMessage = (): Promise<MessageInstance> =>
  (fallback ??= import('antd/es/message').then(
    (m) => m.default as unknown as MessageInstance,
    (error: unknown) => {
      // a failed download is asked again by the next message
      fallback = null;
      throw error;
    },
  ));

export function setMessageApi(api: MessageInstance | null): void {
  current = api;
}

const METHODS = ['success', 'error', 'info', 'warning', 'loading', 'open', 'destroy'] as const;

/** Calls made before any instance is there go to the static API once it has loaded (or to one registered meanwhile). */
const deferred = Object.fromEntries(
  METHODS.map((method) => [
    method,
    (...args: unknown[]) => {
      staticMessage().then(
        (api) => ((current ?? api)[method] as (...a: unknown[]) => unknown)(...args),
        () => undefined,
      );
    },
  ]),
) as unknown as MessageInstance;

export const messageApi = (): MessageInstance => current ?? deferred;

/** Starts loading the static API ahead of a likely message (a form about to be sent). */
export const prepareMessages = (): void => void staticMessage().catch(() => undefined);

/**
 * Removes every message the static API shows, if it was ever loaded (answers whether it was). Test set-up calls it after each test: a
 * message left on screen closes on its own 3 s timer, and that timer firing after a file's jsdom is gone made
 * React fail with "window is not defined".
 */
export async function clearStaticMessages(): Promise<boolean> {
  const api = await fallback?.catch(() => null);
  api?.destroy();
  return !!api;
}
