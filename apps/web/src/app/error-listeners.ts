import { logError } from '../lib/error-log';
import { RequestError } from '../lib/request';

/** Browser notices that reach window.onerror but are no fault of the page (a layout that settles a frame late). */
const BENIGN = [/^ResizeObserver loop/];

/**
 * Uncaught errors go to the error log (SPEC §8): thrown in an event handler or a timer, or a rejected
 * promise nobody awaited. Failed calls are logged by the request layer already, render errors by the
 * route's error boundary.
 */
export function installErrorListeners(): void {
  window.addEventListener('error', (event) => {
    if (BENIGN.some((re) => re.test(event.message ?? ''))) return;
    logError(event.error ?? event.message);
  });
  window.addEventListener('unhandledrejection', (event) => {
    if (!(event.reason instanceof RequestError)) logError(event.reason);
  });
}
