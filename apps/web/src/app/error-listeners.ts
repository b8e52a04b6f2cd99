import { logError } from '../lib/error-log';
import { RequestError } from '../lib/request';

/** Uncaught errors go to the error log (SPEC §8); failed calls are logged by the request layer already. */
export function installErrorListeners(): void {
  window.addEventListener('error', (event) => logError(event.error ?? event.message));
  window.addEventListener('unhandledrejection', (event) => {
    if (!(event.reason instanceof RequestError)) logError(event.reason);
  });
}
