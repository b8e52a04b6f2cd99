/**
 * Navigation from outside React (the request layer's 401 / 403 handling). The router registers its
 * `navigate` here; until it has, the hash is set directly, which the hash router also follows.
 */
export type NavigateFn = (to: string, options?: { replace?: boolean }) => void;

let navigateImpl: NavigateFn | null = null;

export function setNavigate(fn: NavigateFn | null): void {
  navigateImpl = fn;
}

export function navigateTo(to: string, options?: { replace?: boolean }): void {
  if (navigateImpl) {
    navigateImpl(to, options);
    return;
  }
  if (typeof window !== 'undefined') window.location.hash = to;
}
