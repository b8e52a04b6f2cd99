import { useSyncExternalStore } from 'react';
import { MOBILE_BREAKPOINT } from '../config/settings';

const QUERY = `(max-width: ${MOBILE_BREAKPOINT - 0.02}px)`;

function subscribe(onChange: () => void): () => void {
  if (typeof window === 'undefined' || !window.matchMedia) return () => {};
  const list = window.matchMedia(QUERY);
  list.addEventListener('change', onChange);
  return () => list.removeEventListener('change', onChange);
}

const snapshot = (): boolean =>
  typeof window !== 'undefined' && !!window.matchMedia && window.matchMedia(QUERY).matches;

/** Below the mobile breakpoint (SPEC §9: 992px) the side bar collapses into a drawer. */
export const useIsMobile = (): boolean => useSyncExternalStore(subscribe, snapshot, () => false);
