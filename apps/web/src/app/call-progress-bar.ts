import NProgress from 'nprogress';
import { setCallProgressBar } from '../lib/call-progress';
import { useLayoutSettings } from '../layout/layout-settings';

/** NProgress (configured in root-route) on long calls, unless the user turned the progress bar off. */
export function installCallProgressBar(): void {
  setCallProgressBar({
    start: () => {
      if (useLayoutSettings.getState().showProgressBar) NProgress.start();
    },
    done: () => NProgress.done(),
  });
}
