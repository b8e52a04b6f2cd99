/**
 * The progress bar on long calls (SPEC §2, §9): it starts once calls have been pending for a moment and
 * ends when the last one settles, so quick calls never flash it. The bar itself is plugged in by the app
 * (NProgress, gated by the user's setting); this module only counts.
 */

/** Calls quicker than this show no bar. */
export const CALL_PROGRESS_DELAY = 300;

export interface ProgressBar {
  start(): void;
  done(): void;
}

export interface CallProgress {
  /** A call went out; `immediate` shows the bar at once (a page's code loading: the user is waiting for it). */
  begin(immediate?: boolean): void;
  /** A call settled, however it ended. */
  end(): void;
  /** Counts `promise` as a call from now until it settles; resolves or rejects as it does. */
  track<T>(promise: Promise<T>, immediate?: boolean): Promise<T>;
  pending(): number;
}

export function createCallProgress(bar: () => ProgressBar | null, delay = CALL_PROGRESS_DELAY): CallProgress {
  let pending = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let shown: ProgressBar | null = null;

  const show = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending === 0 || shown) return;
    shown = bar();
    shown?.start();
  };

  const begin = (immediate = false) => {
    pending += 1;
    if (shown) return;
    if (immediate) show();
    else if (!timer) timer = setTimeout(show, delay);
  };

  const end = () => {
    if (pending === 0) return;
    pending -= 1;
    if (pending > 0) return;
    clearTimeout(timer);
    timer = undefined;
    // the same bar that started ends, even if the app swapped bars in between
    shown?.done();
    shown = null;
  };

  return {
    begin,
    end,
    track: (promise, immediate) => {
      begin(immediate);
      return promise.finally(end);
    },
    pending: () => pending,
  };
}

let installed: ProgressBar | null = null;

/** The app's bar; null (the default, and in tests) shows nothing. */
export function setCallProgressBar(bar: ProgressBar | null): void {
  installed = bar;
}

const callProgress = createCallProgress(() => installed);

/** The request layer's hook: every console call goes through here. */
export const trackCall = <T>(promise: Promise<T>): Promise<T> => callProgress.track(promise);

/** A page's code on its way (SPEC §2: the bar on navigation): the bar runs from the first moment. */
export const trackPageLoad = <T>(promise: Promise<T>): Promise<T> => callProgress.track(promise, true);
